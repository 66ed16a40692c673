import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { KAFKA_HEADERS, type KafkaRetryEvent } from '../../../runtime/kafka';
import { Harness, header, http503, InvalidCurrencyError, kafkaPlan, uniqueName, waitFor } from './support';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('damaged retry headers on a real Kafka', () => {
  it('gives malformed retry-attempt and retry-not-before their defined outcomes', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('malformed'))).open();
    const { target } = harness;
    const level1 = target.levels[0]?.destination ?? '';
    const calls: Array<{ id: string; attempt: number; at: number }> = [];
    const events: KafkaRetryEvent[] = [];
    await harness.start({
      onEvent: (event) => events.push(event),
      handler: async (message, context) => {
        const id = String(message.value);
        calls.push({ id, attempt: context.attempt, at: Date.now() });
        if (id === 'bad-attempt-permanent') throw new InvalidCurrencyError('XXX');
        if (id === 'valid-attempt-3') throw http503();
      },
    });
    const sent = Date.now();
    const now = String(sent);
    const copy = (value: string, headers: Record<string, string>) => ({
      key: Buffer.from(`k-${value}`),
      value: Buffer.from(value),
      partition: 0,
      headers,
    });
    await harness.producer.send({
      topic: level1,
      messages: [
        // Unreadable attempt, valid due time: handled as attempt 1.
        copy('bad-attempt', { [HEADERS.attempt]: 'abc', [KAFKA_HEADERS.notBefore]: now }),
        // Unreadable attempt and due time, permanent failure: dead-lettered with the raw value kept;
        // the due time falls back to the level's wait after the record's timestamp.
        copy('bad-attempt-permanent', { [HEADERS.attempt]: '-5', [KAFKA_HEADERS.notBefore]: 'soon' }),
        // A valid attempt is honoured: attempt 3 fails into level 3.
        copy('valid-attempt-3', { [HEADERS.attempt]: '3', [KAFKA_HEADERS.notBefore]: now }),
      ],
    });
    const [dead] = await harness.readAll(target.deadLetterTopic, 1, 20_000);
    await waitFor(() => events.filter((e) => e.type === 'handled').length === 3, 10_000, 'three outcomes');

    const of = (id: string) => calls.filter((c) => c.id === id);
    expect(of('bad-attempt').map((c) => c.attempt)).toEqual([1]);
    expect(of('bad-attempt-permanent').map((c) => c.attempt)).toEqual([1]);
    expect(of('bad-attempt-permanent')[0]?.at).toBeGreaterThanOrEqual(
      sent + (target.levels[0]?.waitMs.min ?? 0),
    );
    expect(String(dead?.value)).toBe('bad-attempt-permanent');
    if (!dead) throw new Error('no dead letter');
    expect(header(dead, HEADERS.attempt)).toBe('1');
    expect(header(dead, HEADERS.attemptInvalid)).toBe('-5');
    expect(header(dead, HEADERS.reason)).toBe('permanent');
    const handled = events.filter((e) => e.type === 'handled');
    expect(handled.find((e) => e.type === 'handled' && e.attempt === 3)).toMatchObject({
      outcome: 'retry',
      destination: target.levels[2]?.destination,
    });
  });
});
