import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterHeaders } from '../../../runtime';
import { consumeWithRetries, rabbitMqDeadLetters } from '../../../runtime/rabbitmq';
import { instanceVersion } from './dead-letter-mix';
import {
  type Broker,
  body,
  connect,
  http503,
  rabbitPlan,
  uniqueName,
  waitFor,
  withTopology,
} from './support';

/**
 * Replaying resets the attempt count: a message that was exhausted on attempt 4 gets its four
 * attempts again. --keep-attempts keeps it at 4, so one more failure dead-letters it at once.
 */
describe('the attempt count of a replayed RabbitMQ dead letter', () => {
  const plan = rabbitPlan(
    uniqueName('dl-attempts'),
    { backoff: { type: 'list', delays: ['200ms', '200ms', '200ms'] } as never },
    { brokerVersion: instanceVersion() },
  );
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  let broker: Broker;
  let removeTopology: () => Promise<void>;

  beforeAll(async () => {
    removeTopology = await withTopology(plan);
    broker = await connect();
  });
  afterAll(async () => {
    await broker?.close();
    await removeTopology?.();
  });

  async function exhausted(id: string) {
    broker.channel.publish(
      rabbit?.deadLetterExchange ?? '',
      rabbit?.mainQueue ?? '',
      Buffer.from(JSON.stringify({ id })),
      {
        persistent: true,
        messageId: id,
        headers: deadLetterHeaders({
          reason: 'exhausted',
          because: 'transient: HTTP 503',
          errorName: 'HttpRequestError',
          errorMessage: 'HTTP 503',
          attempt: 4,
          source: rabbit?.mainQueue ?? '',
          firstFailureAt: 1_000,
          deadLetteredAt: Date.now(),
        }),
      },
    );
    await broker.channel.waitForConfirms();
  }

  async function replayAndRun(keepAttempts: boolean) {
    const commands = rabbitMqDeadLetters(plan, { connection: broker.connection });
    const report = await commands.replay({ ratePerSecond: 50, keepAttempts, dryRun: false });
    expect(report.replayed).toBe(1);
    const attempts: number[] = [];
    const consumer = await consumeWithRetries(broker.channel, plan, async (_message, context) => {
      attempts.push(context.attempt);
      throw http503();
    });
    await waitFor(
      async () =>
        (await broker.channel.checkQueue(rabbit?.deadLetterQueue ?? '')).messageCount === 1
          ? true
          : undefined,
      30_000,
      'the dead letter again',
    );
    await consumer.stop();
    const [again] = await commands.show();
    await commands.purge({ expect: 1, dryRun: false });
    return { attempts, again };
  }

  it('starts again at attempt 1 by default', async () => {
    await exhausted('reset');
    const { attempts, again } = await replayAndRun(false);
    expect(attempts).toEqual([1, 2, 3, 4]);
    expect(again).toMatchObject({ reason: 'exhausted', attempt: 4, replays: 1 });
    expect(body({ content: again?.body ?? Buffer.alloc(0) }).id).toBe('reset');
  });

  it('keeps attempt 4 with keepAttempts: one more failure and it is dead-lettered again', async () => {
    await exhausted('kept');
    const { attempts, again } = await replayAndRun(true);
    expect(attempts).toEqual([4]);
    expect(again).toMatchObject({ reason: 'exhausted', attempt: 4, replays: 1, firstFailureAt: 1_000 });
  });
});
