import { afterEach, describe, expect, it } from 'vitest';
import { consumeWithRetries, type RabbitHandler } from '../../../runtime/rabbitmq';
import { body, connect, publish, rabbitPlan, uniqueName, waitFor, withTopology } from './support';

/**
 * A rolling deploy on a real RabbitMQ: stop() while handlers run. A handler that honours the stop
 * signal rejects; that is the consumer's doing, never the message's, so nothing is copied or
 * dead-lettered, and the next consumer runs every message again at attempt 1. A handler that
 * ignores the signal is given back at stop()'s deadline.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const MESSAGES = 40;
const ids = Array.from({ length: MESSAGES }, (_, index) => `m-${index}`);
const shapes: Array<[string, (signal: AbortSignal) => unknown]> = [
  ['the signal’s reason (as fetch does)', (signal) => signal.reason],
  ['an AbortError (as timers/promises and drivers do)', () => new DOMException('aborted', 'AbortError')],
];

async function setUp(name: string) {
  const plan = rabbitPlan(uniqueName(name));
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  cleanups.push(await withTopology(plan));
  const admin = await connect();
  cleanups.push(() => admin.close());
  for (const id of ids) await publish(admin, plan, { id }, { messageId: id });
  /** Messages in the wait queues and the dead-letter queue. */
  const copies = async () => {
    let total = 0;
    for (const queue of rabbit.queues.filter((each) => each.role !== 'main')) {
      total += (await admin.channel.checkQueue(queue.name)).messageCount;
    }
    return total;
  };
  return { plan, copies };
}

/** A consumer on a connection of its own; the channel's errors are kept (a 406 would show there). */
async function worker(plan: ReturnType<typeof rabbitPlan>, handler: RabbitHandler, stopTimeoutMs?: number) {
  const broker = await connect();
  cleanups.push(() => broker.close());
  const errors: unknown[] = [];
  broker.channel.on('error', (error) => errors.push(error));
  const consumer = await consumeWithRetries(broker.channel, plan, handler, {
    prefetch: 10,
    ...(stopTimeoutMs === undefined ? {} : { stopTimeoutMs }),
  });
  cleanups.push(() => consumer.stop());
  return { consumer, errors };
}

/** A second consumer that succeeds, until it has seen every message. */
async function runAgain(plan: ReturnType<typeof rabbitPlan>) {
  const seen: Array<{ id: string; attempt: number }> = [];
  await worker(plan, async (message, { attempt }) => {
    seen.push({ id: body(message).id, attempt });
  });
  await waitFor(
    () => (new Set(seen.map((each) => each.id)).size === MESSAGES ? true : undefined),
    60_000,
    'every message',
  );
  return seen;
}

describe('stop() while handlers run (real RabbitMQ)', () => {
  it.each(shapes)(
    'a handler that honours the stop and rejects with %s: nothing copied or dead-lettered, all run again at attempt 1',
    async (_shape, rejection) => {
      const { plan, copies } = await setUp('stop');
      const started: string[] = [];
      const first = await worker(plan, (message, { signal }) => {
        started.push(body(message).id);
        return new Promise<void>((_resolve, reject) => {
          if (signal.aborted) reject(rejection(signal));
          else signal.addEventListener('abort', () => reject(rejection(signal)), { once: true });
        });
      });
      await waitFor(() => (started.length >= 10 ? true : undefined), 30_000, 'ten handlers running');
      await first.consumer.stop();

      const seen = await runAgain(plan);
      expect([...new Set(seen.map((each) => each.id))].sort()).toEqual([...ids].sort());
      expect(seen.filter((each) => each.attempt !== 1)).toEqual([]);
      expect(await copies()).toBe(0);
      expect(first.errors).toEqual([]);
    },
  );

  it('a handler that ignores the signal is given back at the deadline: stop() resolves, and its later failure settles nothing', async () => {
    const { plan, copies } = await setUp('stop-deadline');
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    const first = await worker(
      plan,
      async (message) => {
        started.push(body(message).id);
        await released;
        throw new Error('an unknown error, after the deadline');
      },
      500,
    );
    await waitFor(() => (started.length >= 10 ? true : undefined), 30_000, 'ten handlers running');
    // Resolves while every handler is still blocked.
    await first.consumer.stop();
    release();

    const seen = await runAgain(plan);
    expect(seen.filter((each) => each.attempt !== 1)).toEqual([]);
    expect(await copies()).toBe(0);
    // The late failures settled nothing: a second settle of a delivery would have failed the channel.
    expect(first.errors).toEqual([]);
  });
});
