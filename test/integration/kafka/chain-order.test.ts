import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import type { KafkaHandler, KafkaRetryEvent } from '../../../runtime/kafka';
import { Harness, header, http503, kafkaPlan, recordingMeter, uniqueName, waitFor } from './support';

/**
 * Per-key order on the batched engine, on a real broker and the client KAFKA_CLIENT names: one
 * consumer per process reads the source topic and every retry topic (run(kafka)), so a process
 * owns each partition's whole chain, and a key's records wait in the chain, in order.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A handler that fails the named records a number of times, and logs what it finished, in order. */
function ordersHandler(failures: Record<string, number>) {
  const done: Array<{ id: string; attempt: number; parked: boolean }> = [];
  const tries = new Map<string, number>();
  const handler: KafkaHandler = async (message, context) => {
    const id = String(message.value);
    const tried = (tries.get(id) ?? 0) + 1;
    tries.set(id, tried);
    if (tried <= (failures[id] ?? 0)) throw http503();
    done.push({ id, attempt: context.attempt, parked: context.parked });
  };
  return { done, handler, ids: () => done.map((each) => each.id) };
}

const failures = (events: KafkaRetryEvent[]) => events.filter((event) => event.type === 'failed');

describe('per-key order on the batched engine, one consumer per chain (real Kafka)', () => {
  it('later records of a key follow its first one through the levels; other keys do not wait', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('chain'), { ordering: 'per-key' })).open();
    expect(harness.target.ordering).toBe('park-key');
    const orders = ordersHandler({ OrderPlaced: 2 });
    const events: KafkaRetryEvent[] = [];
    const { meter, count } = recordingMeter();
    await harness.startChain({ handler: orders.handler, meter, onEvent: (event) => events.push(event) });
    await harness.send([
      { key: 'order-42', value: 'OrderPlaced' },
      { key: 'order-42', value: 'OrderUpdated' },
      { key: 'order-42', value: 'OrderCancelled' },
      { key: 'order-7', value: 'OtherOrderPlaced' },
    ]);
    await waitFor(() => orders.done.length === 4, 30_000, 'all four records');
    expect(orders.ids()).toEqual(['OtherOrderPlaced', 'OrderPlaced', 'OrderUpdated', 'OrderCancelled']);
    expect(orders.done.map((each) => [each.id, each.attempt, each.parked])).toEqual([
      ['OtherOrderPlaced', 1, false],
      ['OrderPlaced', 3, false],
      ['OrderUpdated', 1, true],
      ['OrderCancelled', 1, true],
    ]);
    expect(count('retry_topology.kafka.parked', 'policy')[harness.plan.policy]).toBeGreaterThanOrEqual(2);
    expect(failures(events)).toEqual([]);
  });

  it('a follower runs once the record ahead of it is dead-lettered', async () => {
    const plan = kafkaPlan(uniqueName('chain-dlt'), {
      ordering: 'per-key',
      maxAttempts: 2,
      backoff: { type: 'list', delays: ['1s'] },
    });
    harness = await new Harness(plan).open();
    const orders = ordersHandler({ OrderPlaced: 99 });
    await harness.startChain({ handler: orders.handler });
    await harness.send([
      { key: 'order-42', value: 'OrderPlaced' },
      { key: 'order-42', value: 'OrderCancelled' },
    ]);
    const [dead] = await harness.readAll(harness.target.deadLetterTopic, 1, 30_000);
    await waitFor(() => orders.done.length === 1, 30_000, 'the follower');
    expect(String(dead?.value)).toBe('OrderPlaced');
    expect(header(dead as never, HEADERS.reason)).toBe('exhausted');
    expect(orders.done).toEqual([{ id: 'OrderCancelled', attempt: 1, parked: true }]);
  });

  it('survives a restart: a new process finds the key in the chain by reading it from the broker', async () => {
    // A 20 s wait leaves time to stop one process and start another while OrderPlaced waits.
    const plan = kafkaPlan(uniqueName('chain-restart'), {
      ordering: 'per-key',
      maxAttempts: 2,
      backoff: { type: 'list', delays: ['20s'] },
    });
    harness = await new Harness(plan).open();
    const orders = ordersHandler({ OrderPlaced: 1 });
    const first: KafkaRetryEvent[] = [];
    const before = await harness.startChain({
      handler: orders.handler,
      onEvent: (event) => first.push(event),
    });
    await harness.send([{ key: 'order-42', value: 'OrderPlaced' }]);
    await waitFor(
      () => first.some((event) => event.type === 'handled' && event.outcome === 'retry'),
      30_000,
      'OrderPlaced in the retry topic',
    );
    await before.stop();

    // Nothing in memory survives: a new runtime and a new consumer, in the same group.
    await harness.send([{ key: 'order-42', value: 'OrderCancelled' }]);
    const second: KafkaRetryEvent[] = [];
    await harness.startChain({ handler: orders.handler, onEvent: (event) => second.push(event) });
    await waitFor(() => orders.done.length === 2, 90_000, 'both records');
    expect(orders.done).toEqual([
      { id: 'OrderPlaced', attempt: 2, parked: false },
      { id: 'OrderCancelled', attempt: 1, parked: true },
    ]);
    expect(second.some((event) => event.type === 'parked' && event.behind === 0)).toBe(true);
    expect(failures(second)).toEqual([]);
  });

  it('two consumers in one process share the chains whole: every key in order, no chain split, no listener warning', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('chain-two'), { ordering: 'per-key' })).open();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const seen = new Map<string, number[]>();
    let failed = 0;
    const handler: KafkaHandler = async (message, context) => {
      const [key, n] = String(message.value).split(':');
      // Every fifth record fails once: its key's later records must wait for it.
      if (Number(n) % 5 === 0 && context.attempt === 1) {
        failed++;
        throw http503();
      }
      const list = seen.get(key as string) ?? [];
      list.push(Number(n));
      seen.set(key as string, list);
    };
    const events: KafkaRetryEvent[] = [];
    await harness.startChain({ handler, onEvent: (event) => events.push(event) });
    await harness.startChain({ handler, onEvent: (event) => events.push(event) });
    // Sent once both have joined: a rebalance while records run may run one again (at least once).
    const admin = harness.admin;
    const group = harness.target.consumerGroup;
    let stable = false;
    await waitFor(
      () => {
        void admin.describeGroups([group]).then(({ groups }) => {
          stable = groups[0]?.state === 'Stable' && groups[0]?.members.length === 2;
        });
        return stable;
      },
      60_000,
      'both consumers in the group',
    );
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    const records = keys.flatMap((key, k) =>
      Array.from({ length: 10 }, (_, n) => ({ key, value: `${key}:${n}`, partition: k % 3 })),
    );
    await harness.send(records);
    await waitFor(
      () => [...seen.values()].reduce((sum, list) => sum + list.length, 0) >= records.length,
      60_000,
      'every record',
    );
    for (const key of keys) expect(seen.get(key)).toEqual(Array.from({ length: 10 }, (_, n) => n));
    expect(failed).toBeGreaterThan(0);
    expect(events.filter((event) => event.type === 'failed' && event.error.code === 'chain-split')).toEqual(
      [],
    );
    process.off('warning', onWarning);
    expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });
});

describe('without key order (real Kafka)', () => {
  it('plain retry topics: OrderCancelled overtakes OrderPlaced while it waits in retry', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('plain'))).open();
    const orders = ordersHandler({ OrderPlaced: 1 });
    await harness.start({ handler: orders.handler });
    await harness.send([
      { key: 'order-42', value: 'OrderPlaced' },
      { key: 'order-42', value: 'OrderCancelled' },
    ]);
    await waitFor(() => orders.done.length === 2, 20_000, 'both records');
    expect(orders.ids()).toEqual(['OrderCancelled', 'OrderPlaced']);
  });

  it('makes a main and a retry consumer: a record that fails once succeeds from the retry topic', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('run-unordered'))).open();
    expect(harness.target.ordering).toBe('none');
    const orders = ordersHandler({ OrderPlaced: 1 });
    const events: KafkaRetryEvent[] = [];
    await harness.startChain({ handler: orders.handler, onEvent: (event) => events.push(event) });
    await harness.send([
      { key: 'order-42', value: 'OrderPlaced' },
      { key: 'order-7', value: 'OtherOrderPlaced' },
    ]);
    await waitFor(() => orders.done.length === 2, 30_000, 'both records');
    expect(orders.done).toEqual([
      { id: 'OtherOrderPlaced', attempt: 1, parked: false },
      { id: 'OrderPlaced', attempt: 2, parked: false },
    ]);
    expect(failures(events)).toEqual([]);
  });
});
