import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import type { KafkaHandler, KafkaRetryEvent } from '../../../runtime/kafka';
import {
  Harness,
  header,
  http503,
  kafkaPlan,
  recordingMeter,
  skipPerKey,
  uniqueName,
  waitFor,
} from './support';

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

describe('per-key order on a real Kafka', () => {
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

  it('park-key: later records of the key follow OrderPlaced through the levels, other keys do not wait', async (context) => {
    skipPerKey(context);
    harness = await new Harness(kafkaPlan(uniqueName('park'), { ordering: 'per-key' })).open();
    expect(harness.target.ordering).toBe('park-key');
    // OrderPlaced fails twice: it moves from level 1 to level 2, and its followers move after it.
    const orders = ordersHandler({ OrderPlaced: 2 });
    const events: KafkaRetryEvent[] = [];
    const { meter, count } = recordingMeter();
    await harness.start({ handler: orders.handler, meter, onEvent: (event) => events.push(event) });
    await harness.send([
      { key: 'order-42', value: 'OrderPlaced' },
      { key: 'order-42', value: 'OrderUpdated' },
      { key: 'order-42', value: 'OrderCancelled' },
      { key: 'order-7', value: 'OtherOrderPlaced' },
    ]);
    await waitFor(() => orders.done.length === 4, 20_000, 'all four records');
    expect(orders.ids()).toEqual(['OtherOrderPlaced', 'OrderPlaced', 'OrderUpdated', 'OrderCancelled']);
    expect(orders.done.map((each) => [each.id, each.attempt, each.parked])).toEqual([
      ['OtherOrderPlaced', 1, false],
      ['OrderPlaced', 3, false],
      ['OrderUpdated', 1, true],
      ['OrderCancelled', 1, true],
    ]);
    // The followers waited in memory, never copied: no parked copy in any retry topic.
    const queued = events.flatMap((event) => (event.type === 'queued' ? [event] : []));
    expect(queued.map((event) => [event.offset, event.behind])).toEqual([
      ['1', 0],
      ['2', 0],
    ]);
    expect(events.filter((event) => event.type === 'parked')).toEqual([]);
    expect(count('retry_topology.kafka.queued', 'policy')).toEqual({ [harness.plan.policy]: 2 });
    expect(count('retry_topology.kafka.parked', 'role')).toEqual({});
    expect(events.filter((event) => event.type === 'failed')).toEqual([]);
  });

  it('park-key: a full queue parks the key’s queued records, then the new one, in order, behind the head', async (context) => {
    skipPerKey(context);
    harness = await new Harness(kafkaPlan(uniqueName('full'), { ordering: 'per-key' })).open();
    const orders = ordersHandler({ OrderPlaced: 1 });
    const events: KafkaRetryEvent[] = [];
    await harness.start({
      handler: orders.handler,
      maxQueuedPerPartition: 2,
      onEvent: (event) => events.push(event),
    });
    await harness.send(
      ['OrderPlaced', 'OrderPaid', 'OrderPacked', 'OrderShipped'].map((value) => ({
        key: 'order-42',
        value,
      })),
    );
    await waitFor(() => orders.done.length === 4, 30_000, 'all four records');
    expect(orders.ids()).toEqual(['OrderPlaced', 'OrderPaid', 'OrderPacked', 'OrderShipped']);
    const of = (type: string) =>
      events.flatMap((event) => (event.type === type && event.role === 'main' ? [event.offset] : []));
    expect(of('queued')).toEqual(['1', '2']);
    // The third follower finds the queue full: the two queued go first, then it, all behind 0.
    expect(of('parked')).toEqual(['1', '2', '3']);
    expect(orders.done.slice(1).every((each) => each.parked)).toBe(true);
    expect(events.filter((event) => event.type === 'failed')).toEqual([]);
  });

  it('park-key: a follower is released, in order, when the record ahead of it is dead-lettered', async (context) => {
    skipPerKey(context);
    const plan = kafkaPlan(uniqueName('dlt-head'), {
      ordering: 'per-key',
      maxAttempts: 2,
      backoff: { type: 'list', delays: ['1s'] },
    });
    harness = await new Harness(plan).open();
    const orders = ordersHandler({ OrderPlaced: 99 });
    await harness.start({ handler: orders.handler });
    await harness.send([
      { key: 'order-42', value: 'OrderPlaced' },
      { key: 'order-42', value: 'OrderCancelled' },
    ]);
    const [dead] = await harness.readAll(harness.target.deadLetterTopic, 1, 20_000);
    await waitFor(() => orders.done.length === 1, 20_000, 'the follower');
    expect(String(dead?.value)).toBe('OrderPlaced');
    expect(header(dead as never, HEADERS.reason)).toBe('exhausted');
    expect(orders.done).toEqual([{ id: 'OrderCancelled', attempt: 1, parked: true }]);
  });

  it('park-key survives a restart: a new process finds the key in the chain from the broker alone', async (context) => {
    skipPerKey(context);
    // A 20 s wait leaves time, on a loaded machine, to stop one process and start another while
    // OrderPlaced waits (1-2 s here; 6 s was once not enough under a full CI run's load).
    const plan = kafkaPlan(uniqueName('restart'), {
      ordering: 'per-key',
      maxAttempts: 2,
      backoff: { type: 'list', delays: ['20s'] },
    });
    harness = await new Harness(plan).open();
    const orders = ordersHandler({ OrderPlaced: 1 });
    const first: KafkaRetryEvent[] = [];
    const before = await harness.start({ handler: orders.handler, onEvent: (event) => first.push(event) });
    await harness.send([{ key: 'order-42', value: 'OrderPlaced' }]);
    await waitFor(
      () => first.some((event) => event.type === 'handled' && event.outcome === 'retry'),
      20_000,
      'OrderPlaced in the retry topic',
    );
    await before.stop();

    // Nothing in memory survives: a new runtime, new consumers, a new chain view.
    await harness.send([{ key: 'order-42', value: 'OrderCancelled' }]);
    const second: KafkaRetryEvent[] = [];
    await harness.start({ handler: orders.handler, onEvent: (event) => second.push(event) });
    await waitFor(() => orders.done.length === 2, 90_000, 'both records');
    expect(orders.done).toEqual([
      { id: 'OrderPlaced', attempt: 2, parked: false },
      { id: 'OrderCancelled', attempt: 1, parked: true },
    ]);
    expect(second.some((event) => event.type === 'queued' && event.behind === 0)).toBe(true);
  });
});
