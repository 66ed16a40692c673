import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { KAFKA_HEADERS, type KafkaRetryEvent } from '../../../runtime/kafka';
import {
  Harness,
  header,
  http503,
  InvalidCurrencyError,
  kafkaPlan,
  recordingMeter,
  uniqueName,
  waitFor,
} from './support';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('the acceptance run on a real Kafka (1 s / 2 s / 4 s, no jitter)', () => {
  it('retries A until it succeeds, dead-letters B at once and C after attempt 4, and never stops the partition', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('accept'))).open();
    const { target } = harness;
    const calls: Array<{ id: string; attempt: number; at: number; topic: string; partition: number }> = [];
    const events: KafkaRetryEvent[] = [];
    const { meter, count } = recordingMeter();
    await harness.start({
      meter,
      onEvent: (event) => events.push(event),
      handler: async (message, context) => {
        const id = String(message.value);
        calls.push({
          id,
          attempt: context.attempt,
          at: Date.now(),
          topic: context.topic,
          partition: context.partition,
        });
        if (id === 'A' && context.attempt < 3) throw http503();
        if (id === 'B') throw new InvalidCurrencyError('unsupported currency XXX');
        if (id === 'C') throw http503();
      },
    });
    // One partition for all four: H sits behind failing records.
    await harness.send(['A', 'B', 'C', 'H'].map((id) => ({ key: `order-${id}`, value: id, partition: 0 })));
    const dead = await harness.readAll(target.deadLetterTopic, 2, 30_000);
    // A: 3 deliveries, B: 1, C: 4, H: 1; each counted once its outcome is carried out.
    await waitFor(() => events.filter((e) => e.type === 'handled').length === 9, 10_000, 'nine outcomes');

    const of = (id: string) => calls.filter((c) => c.id === id);
    expect(of('A').map((c) => c.attempt)).toEqual([1, 2, 3]);
    expect(of('B').map((c) => c.attempt)).toEqual([1]);
    expect(of('C').map((c) => c.attempt)).toEqual([1, 2, 3, 4]);
    expect(of('H').map((c) => c.attempt)).toEqual([1]);

    // Never before due: each gap is at least the level's wait (the copy is due at failure + wait).
    const gaps = (id: string) =>
      of(id)
        .slice(1)
        .map((c, i) => c.at - (of(id)[i]?.at ?? 0));
    const [a1, a2] = gaps('A');
    expect(a1).toBeGreaterThanOrEqual(1_000);
    expect(a2).toBeGreaterThanOrEqual(2_000);
    const [c1, c2, c3] = gaps('C');
    expect(c1).toBeGreaterThanOrEqual(1_000);
    expect(c2).toBeGreaterThanOrEqual(2_000);
    expect(c3).toBeGreaterThanOrEqual(4_000);
    // A liveness bound only: late is allowed on a loaded machine, stuck is not. How late is printed.
    for (const gap of [a1, a2, c1, c2, c3]) expect(gap).toBeLessThan(60_000);
    console.log(`Kafka acceptance run: gaps A ${[a1, a2]} ms, C ${[c1, c2, c3]} ms (planned 1000/2000/4000)`);

    // The main partition never stopped: H ran before C's chain was over (7 s of waits). A
    // partition held by a failing record's chain, A's or C's, would run H after it.
    expect(of('H')[0]?.at).toBeLessThan(of('C')[3]?.at ?? 0);
    console.log(
      `Kafka acceptance run: H ran ${(of('H')[0]?.at ?? 0) - (of('A')[0]?.at ?? 0)} ms after A's first call`,
    );
    // Every copy stayed on the source partition; each retry came from its level's topic.
    expect(calls.every((c) => c.partition === 0)).toBe(true);
    expect(of('C').map((c) => c.topic)).toEqual([
      target.sourceTopic,
      ...target.levels.map((l) => l.destination),
    ]);

    const byId = new Map(dead.map((m) => [String(m.value), m]));
    expect([...byId.keys()].sort()).toEqual(['B', 'C']);
    const b = byId.get('B');
    const c = byId.get('C');
    if (!b || !c) throw new Error('missing dead letters');
    expect(String(b.key)).toBe('order-B');
    expect(header(b, HEADERS.reason)).toBe('permanent');
    expect(header(b, HEADERS.errorName)).toBe('InvalidCurrencyError');
    expect(header(b, HEADERS.errorMessage)).toBe('unsupported currency XXX');
    expect(header(b, HEADERS.attempt)).toBe('1');
    expect(header(b, HEADERS.source)).toBe(target.sourceTopic);
    expect(header(b, KAFKA_HEADERS.originalTopic)).toBe(target.sourceTopic);
    expect(header(b, KAFKA_HEADERS.originalPartition)).toBe('0');
    expect(header(b, KAFKA_HEADERS.originalOffset)).toBe('1');
    expect(header(c, HEADERS.reason)).toBe('exhausted');
    expect(header(c, HEADERS.errorName)).toBe('HttpRequestError');
    expect(header(c, HEADERS.attempt)).toBe('4');
    expect(header(c, HEADERS.source)).toBe(target.levels[2]?.destination);
    expect(header(c, KAFKA_HEADERS.originalOffset)).toBe('2');
    expect(Number(header(c, HEADERS.firstFailureAt))).toBeLessThanOrEqual(of('C')[1]?.at ?? 0);
    expect(header(c, KAFKA_HEADERS.notBefore)).toBeUndefined();

    expect(events.filter((e) => e.type === 'failed')).toEqual([]);
    expect(count('retry_topology.attempts', 'outcome')).toEqual({ success: 2, retry: 5, 'dead-letter': 2 });
    expect(count('retry_topology.dead_letters', 'reason')).toEqual({ permanent: 1, exhausted: 1 });
    expect(count('retry_topology.retries_scheduled', 'level')).toEqual({ 1: 2, 2: 2, 3: 1 });
  });
});
