import { afterEach, expect, it } from 'vitest';
import {
  type ConsumerLike,
  createKafkaRetry,
  KAFKA_HEADERS,
  type KafkaRetryEvent,
  type ProducerLike,
} from '../../../runtime/kafka';
import { describePerKey, FAST, Harness, http503, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * park-key when a step fails while records of a key wait in memory: a failed produce while a
 * full queue is parked, or a commit that landed although its reply was lost. Either way the
 * waiting records must still be handled, in order, before the key's later records.
 */

let harness: Harness | undefined;
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop().catch(() => undefined);
  await harness?.close();
  harness = undefined;
});

/** A handler that fails the named records a number of times and logs what it finished, in order. */
function ordersHandler(failures: Record<string, number>) {
  const done: string[] = [];
  const tries = new Map<string, number>();
  return {
    done,
    handler: async (message: { value: Buffer | null }) => {
      const id = String(message.value);
      const tried = (tries.get(id) ?? 0) + 1;
      tries.set(id, tried);
      if (tried <= (failures[id] ?? 0)) throw http503();
      done.push(id);
    },
  };
}

const isParked = (record: Parameters<ProducerLike['send']>[0]) =>
  record.messages.some((message) => message.headers[KAFKA_HEADERS.parked] !== undefined);

describePerKey('park-key: faults while records wait behind their key', () => {
  it('a produce that fails while a full queue is parked leaves the rest queued, in order', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('park-fail'), { ordering: 'per-key' })).open();
    const real = harness.producer;
    let parkedSends = 0;
    // The second parked copy is refused once (a leader change, a timeout).
    const flaky: ProducerLike = {
      send: (record) =>
        isParked(record) && ++parkedSends === 2
          ? Promise.reject(new Error('NOT_LEADER_OR_FOLLOWER (simulated)'))
          : real.send(record),
    };
    const orders = ordersHandler({ OrderPlaced: 1 });
    const events: KafkaRetryEvent[] = [];
    await harness.start({
      handler: orders.handler,
      producer: flaky,
      maxQueuedPerPartition: 2,
      failureBackoff: { initialMs: 300, maxMs: 1_000 },
      onEvent: (event) => events.push(event),
    });
    await harness.send(
      ['OrderPlaced', 'OrderPaid', 'OrderPacked', 'OrderShipped'].map((value) => ({
        key: 'order-42',
        value,
      })),
    );
    await waitFor(() => orders.done.length === 4, 30_000, 'all four records');
    expect(orders.done).toEqual(['OrderPlaced', 'OrderPaid', 'OrderPacked', 'OrderShipped']);
    expect(events.some((event) => event.type === 'failed' && event.error.code === 'produce-failed')).toBe(
      true,
    );
  });

  it('a commit that landed although its reply was lost, then a failed produce: the queued record still runs first', async () => {
    // A 3 s wait keeps A0 in the chain while the rest happens, on a loaded machine too.
    const plan = kafkaPlan(uniqueName('lost-reply'), {
      ordering: 'per-key',
      maxAttempts: 2,
      backoff: { type: 'list', delays: ['3s'] },
    });
    harness = await new Harness(plan).open();
    const real = harness.producer;
    // The first copy of record C into a retry topic is refused once.
    let refuseC = true;
    const flaky: ProducerLike = {
      send: (record) => {
        if (refuseC && record.messages.some((message) => String(message.value) === 'C')) {
          refuseC = false;
          return Promise.reject(new Error('REQUEST_TIMED_OUT (simulated)'));
        }
        return real.send(record);
      },
    };
    // The main group's commit after B lands, and its reply is lost.
    let loseReply = false;
    const lossy = (consumer: ConsumerLike): ConsumerLike =>
      new Proxy(consumer, {
        get(target, property) {
          if (property === 'commitOffsets') {
            return async (offsets: Parameters<ConsumerLike['commitOffsets']>[0]) => {
              await target.commitOffsets(offsets);
              if (loseReply) {
                loseReply = false;
                throw new Error('REQUEST_TIMED_OUT (simulated: the commit landed, its reply did not)');
              }
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const orders = ordersHandler({ A0: 1, C: 1 });
    const client = harness.kit;
    const target = harness.target;
    const settings = { ...FAST, fromBeginning: true };
    const retry = createKafkaRetry({
      plan: harness.plan,
      producer: flaky,
      admin: harness.clientAdmin,
      client: client.client,
      viewConsumer: (groupId) => client.consumer(groupId, settings),
      // Queues in memory are the per-record engine's per-key order.
      engine: 'per-record',
      fromBeginning: true,
      failureBackoff: { initialMs: 300, maxMs: 1_000 },
      handler: async (message) => {
        await orders.handler(message);
        if (String(message.value) === 'B') loseReply = true;
      },
    });
    const main = client.consumer(target.consumerGroup, settings);
    const retrying = client.consumer(target.retryConsumerGroup, settings);
    await Promise.all([main.connect(), retrying.connect()]);
    stops.push(async () => {
      await retry.stop();
      await Promise.all([main.disconnect(), retrying.disconnect()]);
    });
    await retry.runMain(lossy(main));
    await retry.runRetry(retrying);
    // A0 fails into the chain (1 s); A1 waits behind it; B is handled (its commit's reply is
    // lost); C's copy is refused, so C is read again after the back-off; then A2 arrives.
    await harness.send([
      { key: 'order-A', value: 'A0' },
      { key: 'order-A', value: 'A1' },
      { key: 'order-B', value: 'B' },
      { key: 'order-C', value: 'C' },
    ]);
    await waitFor(() => orders.done.includes('C'), 20_000, 'C');
    await harness.send([{ key: 'order-A', value: 'A2' }]);
    await waitFor(() => orders.done.length === 5, 30_000, 'every record');
    expect(orders.done.filter((id) => id.startsWith('A'))).toEqual(['A0', 'A1', 'A2']);
  });

  it('a commit that fails after a released record (a rebalance under way): the key’s next record waits until a commit lands', async () => {
    const plan = kafkaPlan(uniqueName('commit-fails'), {
      ordering: 'per-key',
      maxAttempts: 2,
      backoff: { type: 'list', delays: ['1s'] },
    });
    harness = await new Harness(plan).open();
    // Commits of the main group refused without landing, `failing` of them in a row.
    let failing = 0;
    let landed = -1n;
    const refusing = (consumer: ConsumerLike): ConsumerLike =>
      new Proxy(consumer, {
        get(target, property) {
          if (property === 'commitOffsets') {
            return async (offsets: Parameters<ConsumerLike['commitOffsets']>[0]) => {
              if (failing > 0) {
                failing--;
                throw new Error('REBALANCE_IN_PROGRESS (simulated)');
              }
              await target.commitOffsets(offsets);
              for (const o of offsets) landed = BigInt(o.offset);
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    const orders = ordersHandler({ A0: 1 });
    // What the group's commit said when each record ran.
    const committedAt: Record<string, bigint> = {};
    const client = harness.kit;
    const settings = { ...FAST, fromBeginning: true };
    const retry = createKafkaRetry({
      plan: harness.plan,
      producer: harness.producer,
      admin: harness.clientAdmin,
      client: client.client,
      viewConsumer: (groupId) => client.consumer(groupId, settings),
      // Queues in memory are the per-record engine's per-key order.
      engine: 'per-record',
      fromBeginning: true,
      failureBackoff: { initialMs: 300, maxMs: 1_000 },
      handler: async (message) => {
        const id = String(message.value);
        committedAt[id] = landed;
        await orders.handler(message);
        // A1's commit and the next one are refused.
        if (id === 'A1') failing = 2;
      },
    });
    const main = client.consumer(harness.target.consumerGroup, settings);
    const retrying = client.consumer(harness.target.retryConsumerGroup, settings);
    await Promise.all([main.connect(), retrying.connect()]);
    stops.push(async () => {
      await retry.stop();
      await Promise.all([main.disconnect(), retrying.disconnect()]);
    });
    await retry.runMain(refusing(main));
    await retry.runRetry(retrying);
    // A1 and A2 wait behind A0 (in the chain for 1 s); then A1 runs and its commit is refused.
    await harness.send(['A0', 'A1', 'A2'].map((value) => ({ key: 'order-A', value })));
    await waitFor(() => orders.done.length === 3, 30_000, 'all three');
    expect(orders.done).toEqual(['A0', 'A1', 'A2']);
    // A2 ran only once a commit past A1 (offset 1) had landed: had the partition moved, its new
    // owner would have run A1 again, after A2.
    expect(committedAt.A2).toBeGreaterThan(1n);
  });
});
