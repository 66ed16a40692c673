import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import type { ConsumedMessage, KafkaHeaders } from '../../../runtime/kafka';
import { Harness, header, http503, kafkaPlan, uniqueName, waitFor } from './support';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Trace context (W3C), application headers, and a binary value that is not UTF-8. */
const TRACED = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
  'x-request-id': 'req-7f3a',
  'x-correlation-id': 'corr-19',
  'x-tenant': 'acme',
};
const BINARY = Buffer.from([0xff, 0x00, 0xfe, 0x80]);

/** The application's headers as they arrived: every one of ours left out. */
function applicationHeaders(headers: KafkaHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.startsWith('retry-') || value === undefined) continue;
    const first = Array.isArray(value) ? value[0] : value;
    out[name] = Buffer.isBuffer(first) ? first.toString('hex') : Buffer.from(String(first)).toString('hex');
  }
  return out;
}

const expected = (extra: Record<string, string>) =>
  Object.fromEntries(
    Object.entries({ ...TRACED, ...extra }).map(([name, value]) => [
      name,
      Buffer.from(value).toString('hex'),
    ]),
  );

describe('application headers on a real Kafka, with per-key order', () => {
  it('survive every hop byte for byte: retry topics, parked copies, the dead-letter topic', async () => {
    const plan = kafkaPlan(uniqueName('headers'), {
      ordering: 'per-key',
      maxAttempts: 3,
      backoff: { type: 'list', delays: ['300ms', '600ms'] },
    });
    harness = await new Harness(plan).open();
    const { target } = harness;
    const seen: Array<{ id: string; attempt: number; parked: boolean; headers: Record<string, string> }> = [];
    // The follower is parked into the retry topics as a copy: the hop to test.
    await harness.startChain({
      handler: async (message, context) => {
        const id = String(message.value);
        seen.push({
          id,
          attempt: context.attempt,
          parked: context.parked,
          headers: applicationHeaders(message.headers),
        });
        if (id === 'A') throw http503();
      },
    });
    const send = (value: string, extra: Record<string, string>) =>
      harness?.producer.send({
        topic: target.sourceTopic,
        messages: [
          {
            key: Buffer.from('order-42'),
            value: Buffer.from(value),
            partition: 0,
            headers: { ...TRACED, ...extra, 'x-binary': BINARY },
          },
        ],
      });
    await send('A', { 'x-message': 'A' });
    await send('B', { 'x-message': 'B' });

    const [dead] = await harness.readAll(target.deadLetterTopic, 1, 30_000);
    await waitFor(() => seen.some((each) => each.id === 'B'), 30_000, 'B after A was dead-lettered');
    const withBinary = (extra: Record<string, string>) => ({
      ...expected(extra),
      'x-binary': BINARY.toString('hex'),
    });

    // The handler saw them on every delivery: A's three attempts, B once after waiting.
    expect(seen.map((each) => [each.id, each.attempt])).toEqual([
      ['A', 1],
      ['A', 2],
      ['A', 3],
      ['B', 1],
    ]);
    for (const each of seen) expect(each.headers).toEqual(withBinary({ 'x-message': each.id }));
    expect(seen.at(-1)?.parked).toBe(true);

    // Every copy in the chain carries them once, next to ours: A's retries and B's parked copies.
    const level1 = await harness.readAll(target.levels[0]?.destination ?? '', 2, 20_000);
    const level2 = await harness.readAll(target.levels[1]?.destination ?? '', 1, 20_000);
    const copies: ConsumedMessage[] = [...level1, ...level2];
    expect(copies.some((copy) => header(copy, 'retry-parked') === 'true')).toBe(true);
    for (const copy of copies) {
      expect(applicationHeaders(copy.headers)).toEqual(withBinary({ 'x-message': String(copy.value) }));
      for (const value of Object.values(copy.headers ?? {})) expect(Array.isArray(value)).toBe(false);
    }

    // The dead letter keeps them beside its reason.
    if (!dead) throw new Error('no dead letter');
    expect(String(dead.value)).toBe('A');
    expect(applicationHeaders(dead.headers)).toEqual(withBinary({ 'x-message': 'A' }));
    expect(header(dead, HEADERS.reason)).toBe('exhausted');
  });
});

describe('application headers on a real Kafka, without key order (either engine)', () => {
  it('survive every hop byte for byte: retry topics and the dead-letter topic', async () => {
    const plan = kafkaPlan(uniqueName('headers-plain'), {
      maxAttempts: 3,
      backoff: { type: 'list', delays: ['300ms', '600ms'] },
    });
    harness = await new Harness(plan).open();
    const { target } = harness;
    const seen: Array<{ id: string; attempt: number; headers: Record<string, string> }> = [];
    await harness.start({
      handler: async (message, context) => {
        const id = String(message.value);
        seen.push({ id, attempt: context.attempt, headers: applicationHeaders(message.headers) });
        if (id === 'A') throw http503();
      },
    });
    await harness.producer.send({
      topic: target.sourceTopic,
      messages: ['A', 'B'].map((value) => ({
        key: Buffer.from(`order-${value}`),
        value: Buffer.from(value),
        partition: 0,
        headers: { ...TRACED, 'x-message': value, 'x-binary': BINARY },
      })),
    });

    const [dead] = await harness.readAll(target.deadLetterTopic, 1, 30_000);
    const withBinary = (extra: Record<string, string>) => ({
      ...expected(extra),
      'x-binary': BINARY.toString('hex'),
    });
    expect(seen.map((each) => [each.id, each.attempt]).sort()).toEqual([
      ['A', 1],
      ['A', 2],
      ['A', 3],
      ['B', 1],
    ]);
    for (const each of seen) expect(each.headers).toEqual(withBinary({ 'x-message': each.id }));

    const level1 = await harness.readAll(target.levels[0]?.destination ?? '', 1, 20_000);
    const level2 = await harness.readAll(target.levels[1]?.destination ?? '', 1, 20_000);
    for (const copy of [...level1, ...level2]) {
      expect(applicationHeaders(copy.headers)).toEqual(withBinary({ 'x-message': 'A' }));
      for (const value of Object.values(copy.headers ?? {})) expect(Array.isArray(value)).toBe(false);
    }
    if (!dead) throw new Error('no dead letter');
    expect(String(dead.value)).toBe('A');
    expect(applicationHeaders(dead.headers)).toEqual(withBinary({ 'x-message': 'A' }));
    expect(header(dead, HEADERS.reason)).toBe('exhausted');
    expect(header(dead, HEADERS.attempt)).toBe('3');
  });
});
