import { afterEach, describe, expect, it } from 'vitest';
import type { KafkaRetryEvent, ProducerLike } from '../../../runtime/kafka';
import { Harness, http503, kafkaPlan, uniqueName, waitFor } from './support';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

class SimulatedCrash extends Error {}

async function committed(h: Harness, group: string, topic: string, partition: number): Promise<string> {
  const [offsets] = await h.admin.fetchOffsets({ groupId: group, topics: [topic] });
  return offsets?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
}

/** Waits for the group's commit (it follows the handler's return by a round trip). */
async function committedPast(h: Harness, group: string, topic: string, partition: number, offset: string) {
  const deadline = Date.now() + 10_000;
  let last = await committed(h, group, topic, partition);
  while (last !== offset && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await committed(h, group, topic, partition);
  }
  expect(last).toBe(offset);
}

describe('faults on a real Kafka', () => {
  it('a consumer killed between the acked copy and the commit gives a duplicate, never a loss', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('kill'))).open();
    const { target } = harness;
    const calls: Array<{ process: number; attempt: number; ok: boolean }> = [];
    const handlerFor = (process: number) => async (_message: unknown, context: { attempt: number }) => {
      const first = calls.length === 0;
      calls.push({ process, attempt: context.attempt, ok: !first });
      if (first) throw http503();
    };
    // Process 1: the handler fails, the copy to retry level 1 is acked, and the process "dies"
    // before the commit (the hook throws; a long back-off keeps it from reading the record again).
    const events: KafkaRetryEvent[] = [];
    let crashed = false;
    const dying = await harness.start({
      handler: handlerFor(1),
      failureBackoff: { initialMs: 60_000, maxMs: 60_000 },
      onEvent: (event) => events.push(event),
      afterCopyProduced: () => {
        crashed = true;
        throw new SimulatedCrash('killed after the produce, before the commit');
      },
    });
    await harness.send([{ key: 'order-X', value: 'X', partition: 0 }]);
    await waitFor(() => crashed, 20_000, 'the crash');
    await dying.stop();
    expect(await committed(harness, target.consumerGroup, target.sourceTopic, 0)).toBe('-1');
    const failed = events.find((event) => event.type === 'failed');
    expect(failed?.type === 'failed' && failed.error.code).toBe('step-failed');

    // Process 2 gets both: the uncommitted original (attempt 1 again) and the copy (attempt 2).
    await harness.start({ handler: handlerFor(2) });
    await waitFor(() => calls.length === 3, 20_000, 'the original and the copy');
    expect(
      calls
        .filter((c) => c.process === 2)
        .map((c) => c.attempt)
        .sort(),
    ).toEqual([1, 2]);
    expect(calls.filter((c) => c.ok)).toHaveLength(2);
    const copies = await harness.readAll(target.levels[0]?.destination ?? '', 1);
    expect(copies).toHaveLength(1);
    await committedPast(harness, target.consumerGroup, target.sourceTopic, 0, '1');
  });

  it('a produce that fails is not committed and is tried again after a doubling back-off, not in a loop', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('produce'))).open();
    const { target } = harness;
    let refusals = 2;
    const real = harness.producer;
    const flaky: ProducerLike = {
      send: (record) =>
        refusals-- > 0 ? Promise.reject(new Error('NOT_ENOUGH_REPLICAS (simulated)')) : real.send(record),
    };
    const calls: Array<{ id: string; attempt: number; at: number }> = [];
    const events: KafkaRetryEvent[] = [];
    await harness.start({
      producer: flaky,
      failureBackoff: { initialMs: 300, maxMs: 5_000 },
      onEvent: (event) => events.push(event),
      handler: async (message, context) => {
        calls.push({ id: String(message.value), attempt: context.attempt, at: Date.now() });
        if (String(message.value) === 'X' && context.attempt === 1) throw http503();
      },
    });
    await harness.send([
      { key: 'order-X', value: 'X', partition: 0 },
      { key: 'order-Y', value: 'Y', partition: 1 },
    ]);
    await waitFor(() => calls.some((c) => c.id === 'X' && c.attempt === 2), 20_000, 'X attempt 2');

    const firsts = calls.filter((c) => c.id === 'X' && c.attempt === 1);
    // One handler run per try: three tries, not a hot loop; each after the back-off.
    expect(firsts).toHaveLength(3);
    expect((firsts[1]?.at ?? 0) - (firsts[0]?.at ?? 0)).toBeGreaterThanOrEqual(300);
    expect((firsts[2]?.at ?? 0) - (firsts[1]?.at ?? 0)).toBeGreaterThanOrEqual(600);
    const failures = events.filter((e) => e.type === 'failed');
    expect(failures.map((e) => e.type === 'failed' && [e.error.code, e.retryInMs])).toEqual([
      ['produce-failed', 300],
      ['produce-failed', 600],
    ]);
    // The other partition went on meanwhile; exactly one copy reached the retry topic.
    expect(calls.filter((c) => c.id === 'Y')).toHaveLength(1);
    expect(await harness.readAll(target.levels[0]?.destination ?? '', 1)).toHaveLength(1);
    await committedPast(harness, target.consumerGroup, target.sourceTopic, 0, '1');
  });
});
