import { describe, expect, it } from 'vitest';
import { MAX_REQUEST_BYTES, sendCopies, sizeOf } from '../../../runtime/kafka/send-copies';
import { BatchProducer } from './batch-fakes';

const copy = (topic: string, value: string) => ({
  topic,
  message: {
    key: Buffer.from('k'),
    value: Buffer.from(value),
    partition: 0,
    headers: { 'x-request-id': 'r' },
  },
});

describe('sendCopies', () => {
  it('never throws: a send that throws before it is under way refuses every copy', async () => {
    const producer = new BatchProducer([]);
    producer.send = () => {
      throw new Error('the producer is disconnected');
    };
    const results = await sendCopies(producer, 'kafkajs', [copy('a', '1'), copy('b', '2')], -1);
    expect(results).toEqual([
      expect.objectContaining({ code: 'produce-failed' }),
      expect.objectContaining({ code: 'produce-failed' }),
    ]);
  });

  it('sizes a header that came without a value (null) as empty', () => {
    const headers = { 'x-empty': null as unknown as string };
    expect(sizeOf({ key: null, value: null, partition: 0, headers })).toBe(24 + 8 + 'x-empty'.length);
  });

  it('sends one request per destination, with the acks asked for (KafkaJS) and none (Confluent)', async () => {
    const producer = new BatchProducer([]);
    const results = await sendCopies(
      producer,
      'kafkajs',
      [copy('a', '1'), copy('b', '2'), copy('a', '3')],
      -1,
    );
    expect(results).toEqual([undefined, undefined, undefined]);
    expect(
      producer.sent.map((each) => [each.topic, each.messages.map((m) => String(m.value)), each.acks]),
    ).toEqual([
      ['a', ['1', '3'], -1],
      ['b', ['2'], -1],
    ]);
    const confluent = new BatchProducer([]);
    await sendCopies(confluent, 'confluent', [copy('a', '1')], -1);
    expect(confluent.sent[0]?.acks).toBeUndefined();
  });

  it('splits a destination’s copies into requests the broker accepts, in order', async () => {
    const producer = new BatchProducer([]);
    const big = 'x'.repeat(300 * 1024);
    const copies = [1, 2, 3, 4, 5].map((n) => copy('a', `${n}${big}`));
    await sendCopies(producer, 'kafkajs', copies, -1);
    expect(producer.sent.length).toBeGreaterThan(1);
    for (const request of producer.sent) {
      const bytes = request.messages.reduce(
        (sum, m) => sum + sizeOf({ key: null, value: m.value as Buffer, partition: 0, headers: {} }),
        0,
      );
      expect(bytes).toBeLessThanOrEqual(MAX_REQUEST_BYTES);
    }
    expect(producer.sent.flatMap((each) => each.messages.map((m) => String(m.value)[0]))).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
    ]);
  });

  it('refuses the copies of a refused request only, and never throws', async () => {
    const producer = new BatchProducer([]);
    producer.failSends = 1;
    const results = await sendCopies(
      producer,
      'kafkajs',
      [copy('a', '1'), copy('b', '2'), copy('a', '3')],
      1,
    );
    expect(results.map((each) => each?.code)).toEqual(['produce-failed', undefined, 'produce-failed']);
    expect(producer.sent.map((each) => each.topic)).toEqual(['b']);
  });
});
