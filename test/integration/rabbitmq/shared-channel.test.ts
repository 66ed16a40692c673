import type { ConsumeMessage } from 'amqplib';
import { afterEach, describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../../policy';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import { consumeWithHooks } from '../../../runtime/rabbitmq/consumer';
import {
  type Broker,
  body,
  connect,
  drain,
  http503,
  publish,
  rabbitPlan,
  uniqueName,
  waitFor,
  withTopology,
} from './support';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A topology whose one wait level holds copies for an hour, so a test can read them in place. */
async function topology(name: string): Promise<RetryPlan> {
  const plan = rabbitPlan(uniqueName(name), { maxAttempts: 2, backoff: { type: 'list', delays: ['1h'] } });
  cleanups.push(await withTopology(plan));
  return plan;
}

function rabbitOf(plan: RetryPlan) {
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  return rabbit;
}

/** A plain queue for the deliveries the runtime does not own. */
async function plainQueue(admin: Broker, name: string): Promise<string> {
  const queue = uniqueName(name);
  await admin.channel.assertQueue(queue, { durable: true });
  cleanups.push(async () => {
    await admin.channel.deleteQueue(queue).catch(() => undefined);
  });
  return queue;
}

async function send(broker: Broker, queue: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    await new Promise<void>((resolve, reject) =>
      broker.channel.sendToQueue(queue, Buffer.from(JSON.stringify({ id })), { persistent: true }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  }
}

const ids = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
const sorted = (messages: Array<{ content: Buffer }>) => messages.map((message) => body(message).id).sort();

/**
 * Every ack the runtime has issued so far has reached the broker: the runtime sends its acks on the
 * next turn of the event loop (one setImmediate), and the broker handles a channel's frames in
 * order, so the reply to a synchronous method sent after them means they were processed.
 */
async function acksDone(broker: Broker, queue: string): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
  await broker.channel.checkQueue(queue);
}

/** A gate the held handlers wait on; opened at cleanup so nothing is left pending. */
function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  cleanups.push(async () => open());
  return opened;
}

/**
 * Several consumers on one channel. Each ack is checked the only way that cannot be fooled: the
 * worker's connection is closed while some handlers are still running, and the broker must then
 * redeliver exactly the deliveries whose handlers had not finished, and nothing else.
 */
describe('consumers sharing one channel on a real RabbitMQ', () => {
  it('two consumeWithRetries: a fast one never acks the slow one’s running deliveries', async () => {
    const [fast, slow] = [await topology('fast'), await topology('slow')];
    const admin = await connect();
    cleanups.push(() => admin.close());
    const worker = await connect();
    cleanups.push(() => worker.close());
    const channelErrors: unknown[] = [];
    worker.channel.on('error', (error) => channelErrors.push(error));
    const held = gate();
    const running = new Set<string>();
    const finished: string[] = [];
    const copied: string[] = [];

    await consumeWithHooks(
      worker.channel,
      fast,
      async (message) => {
        const { id } = body(message);
        if (id.endsWith('-3')) throw http503(); // a retry copy too, then the ack
        finished.push(id);
      },
      { prefetch: 20, afterCopyConfirmed: (message) => void copied.push(body(message).id) },
    );
    await consumeWithRetries(
      worker.channel,
      slow,
      async (message) => {
        const { id } = body(message);
        running.add(id);
        if (id.startsWith('held')) await held;
        else await new Promise((resolve) => setTimeout(resolve, 30));
        running.delete(id);
        finished.push(id);
      },
      { prefetch: 20 },
    );
    // The slow consumer's deliveries come first, so the fast one's tags are above them.
    for (const id of [...ids('held', 5), ...ids('quick', 5)]) await publish(admin, slow, { id });
    await waitFor(() => (running.size === 5 ? true : undefined), 10_000, 'the held handlers running');
    for (const id of ids('fast', 10)) await publish(admin, fast, { id });
    await waitFor(
      () => (finished.length === 9 + 5 ? true : undefined),
      10_000,
      'the fast and the quick deliveries',
    );
    await waitFor(() => (copied.includes('fast-3') ? true : undefined), 10_000, 'fast-3’s copy confirmed');
    await acksDone(worker, rabbitOf(fast).mainQueue);
    expect(channelErrors).toEqual([]);

    await worker.close(); // a crash while five handlers still run

    expect(sorted(await drain(admin, rabbitOf(slow).mainQueue))).toEqual(ids('held', 5));
    expect(await drain(admin, rabbitOf(fast).mainQueue)).toEqual([]);
    const waiting = await drain(admin, rabbitOf(fast).levels[0]?.destination ?? '');
    expect(sorted(waiting)).toEqual(['fast-3']);
  });

  it('three consumeWithRetries, a plain consumer and a basic.get on one channel: each ack covers only its own', async () => {
    const plans = [await topology('one'), await topology('two'), await topology('three')];
    const admin = await connect();
    cleanups.push(() => admin.close());
    const foreignQueue = await plainQueue(admin, 'foreign');
    const getQueue = await plainQueue(admin, 'got');
    const worker = await connect();
    cleanups.push(() => worker.close());
    const channel = worker.channel;
    const channelErrors: unknown[] = [];
    channel.on('error', (error) => channelErrors.push(error));
    const held = gate();
    const running = new Set<string>();
    const finished: string[] = [];

    // A basic.get before any consumer: the ledger meets the channel after a delivery it never saw.
    await send(admin, getQueue, ['got-0', 'got-1']);
    expect(await channel.get(getQueue)).toBeTruthy();

    const delays = [0, 5, 40];
    for (const [index, plan] of plans.entries()) {
      await consumeWithRetries(
        channel,
        plan,
        async (message) => {
          const { id } = body(message);
          running.add(id);
          if (id.startsWith('held')) await held;
          else await new Promise((resolve) => setTimeout(resolve, delays[index]));
          running.delete(id);
          finished.push(id);
        },
        { prefetch: 10 },
      );
    }
    // A plain consumer that never acks, and a second basic.get in the middle of the deliveries.
    const foreign: ConsumeMessage[] = [];
    await channel.consume(foreignQueue, (message) => message && foreign.push(message));
    const [one, two, three] = plans as [RetryPlan, RetryPlan, RetryPlan];
    for (let round = 0; round < 4; round++) {
      await publish(admin, one, { id: `one-${round}` });
      await publish(admin, two, { id: round < 2 ? `held-${round}` : `two-${round}` });
      await publish(admin, three, { id: `three-${round}` });
      await send(admin, foreignQueue, [`foreign-${round}`]);
      if (round === 1) {
        await waitFor(() => (running.size > 0 ? true : undefined), 10_000, 'a handler running');
        expect(await channel.get(getQueue)).toBeTruthy();
      }
    }
    await waitFor(() => (finished.length === 10 ? true : undefined), 10_000, 'ten handlers done');
    await waitFor(() => (foreign.length === 4 ? true : undefined), 10_000, 'the plain consumer’s four');
    await acksDone(worker, rabbitOf(one).mainQueue);
    expect(channelErrors).toEqual([]);
    expect([...running].sort()).toEqual(['held-0', 'held-1']);

    await worker.close();

    expect(sorted(await drain(admin, rabbitOf(two).mainQueue))).toEqual(['held-0', 'held-1']);
    expect(await drain(admin, rabbitOf(one).mainQueue)).toEqual([]);
    expect(await drain(admin, rabbitOf(three).mainQueue)).toEqual([]);
    expect(sorted(await drain(admin, foreignQueue))).toEqual(ids('foreign', 4));
    expect(sorted(await drain(admin, getQueue))).toEqual(['got-0', 'got-1']);
  });
});
