import amqplib, { type ChannelModel } from 'amqplib';
import { afterAll, describe, expect, it } from 'vitest';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import {
  AMQP_URL,
  body,
  connect,
  http503,
  publish,
  rabbitPlan,
  restartBroker,
  uniqueName,
  waitFor,
  withTopology,
} from './support';

/**
 * Messages sitting in wait queues survive a broker restart, and a consumer that reconnects with
 * amqplib's own recovery (`setup` runs consumeWithRetries again) finishes every one of them.
 */
describe('a broker restart while messages wait', () => {
  const plan = rabbitPlan(uniqueName('restart'), {
    maxAttempts: 2,
    backoff: { type: 'list', delays: ['10s'] },
  });
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('loses nothing', async () => {
    cleanups.push(await withTopology(plan));
    const ids = ['m1', 'm2', 'm3', 'm4', 'm5'];
    const done = new Map<string, number>();
    /** How each consumer ended, and what the recovery did: printed if the test fails. */
    const ended: string[] = [];
    const connection = await amqplib.connect(AMQP_URL, {
      recovery: {
        initialDelay: 500,
        maxDelay: 2_000,
        maxRetries: Number.POSITIVE_INFINITY,
        async setup(model: ChannelModel) {
          const channel = await model.createConfirmChannel();
          channel.on('error', () => {});
          const consumer = await consumeWithRetries(channel, plan, async (message, context) => {
            if (context.attempt === 1) throw http503();
            done.set(body(message).id, context.attempt);
          });
          // amqplib recovers a closed connection, not a consumer that ended on an open one (the
          // broker cancelled it, or closed its channel, as a restarting node may): closing the
          // connection hands that case to the recovery too, as the README's program does.
          consumer.closed.catch((error: { code?: string }) => {
            ended.push(error.code ?? String(error));
            void model.close().catch(() => undefined);
          });
        },
      },
    });
    connection.on('error', () => {});
    for (const event of ['disconnect', 'connect-failed', 'reconnect-scheduled', 'connect'])
      connection.on(event, (detail?: { message?: string; error?: { message?: string } }) =>
        ended.push(
          `${event}${detail?.message ? `: ${detail.message}` : ''}${detail?.error?.message ? `: ${detail.error.message}` : ''}`,
        ),
      );
    cleanups.push(() => connection.close().catch(() => undefined));

    const producer = await connect();
    for (const id of ids) await publish(producer, plan, { id });
    await producer.close();
    const waitQueue = rabbit.levels[0]?.destination ?? '';
    await waitFor(
      async () => {
        const probe = await connect();
        const count = (await probe.channel.checkQueue(waitQueue)).messageCount;
        await probe.close();
        return count === ids.length ? true : undefined;
      },
      10_000,
      'all five copies in the wait queue',
    );

    restartBroker();
    const restarted = Date.now();

    // The wait queue returns its messages with at-least-once dead-lettering. When it starts
    // before the main queue (it did here about one restart in four, with hundreds of queues to
    // recover), the messages it sends meanwhile get no confirm, and its worker sends them again
    // after dead_letter_worker_publisher_confirm_timeout: 180 s by default, which these brokers
    // keep (docs/replication.md). Late, never lost: the bound is above that.
    await waitFor(
      () => (done.size === ids.length ? true : undefined),
      240_000,
      'all five processed after the restart',
    ).catch(async (error) => {
      const probe = await connect();
      const queues: string[] = [];
      for (const queue of [rabbit.mainQueue, waitQueue, rabbit.deadLetterQueue]) {
        const { messageCount, consumerCount } = await probe.channel.checkQueue(queue);
        queues.push(`${queue}: ${messageCount} messages, ${consumerCount} consumers`);
      }
      await probe.close();
      console.log(
        `restart test: processed ${[...done.keys()].join(' ')}; events ${JSON.stringify(ended)}; ${queues.join('; ')}`,
      );
      throw error;
    });
    console.log(`restart test: all five processed ${Date.now() - restarted} ms after the restart`);
    expect([...done.entries()].sort()).toEqual(ids.map((id) => [id, 2]));
  }, 300_000);
});
