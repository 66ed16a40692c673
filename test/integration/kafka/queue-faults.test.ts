import { afterEach, describe, expect, it } from 'vitest';
import { KAFKA_HEADERS, type KafkaRetryEvent, type ProducerLike } from '../../../runtime/kafka';
import { Harness, http503, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * park-key when a step fails while records of a key wait in memory: the waiting records must
 * still be handled, in order, before the key's later records.
 */

let harness: Harness | undefined;
afterEach(async () => {
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

describe('park-key: faults while records wait behind their key', () => {
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
});
