import amqplib from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../policy';
import { TransientError } from '../../runtime';
import {
  consumeWithFailover,
  declareTopology,
  type FailoverConsumer,
  type FailoverEvent,
  managementApi,
} from '../../runtime/rabbitmq';
import { publishConfirmed } from '../../runtime/rabbitmq/confirm';
import {
  amqpUrl,
  cluster,
  clusterPlan,
  managementUrl,
  RABBIT_URLS,
  type RabbitNode,
  rabbitPid,
  rabbitTopology,
  restoreCluster,
  sleep,
  uniqueName,
  waitFor,
} from './support';

/**
 * A retry copy in flight when its node dies, made certain rather than left to chance: the moment
 * the handler first fails, the node the consumer is connected to is frozen (SIGSTOP), so the
 * copies of every message being handled are sent and never confirmed; 1.5 s later the node is
 * SIGKILLed. consumeWithFailover must consume again on another node; the broker must deliver
 * the cut-off messages again (their originals were never acked), and their copies must be
 * published again. Duplicates are expected and counted; nothing may be lost.
 */

const MESSAGES = 40;
const name = uniqueName('inflight');
const plan: RetryPlan = clusterPlan(name, 'inflight', ['1s'], 'rabbitmq');
const rabbit = plan.targets.rabbitmq;
if (!rabbit) throw new Error('no rabbitmq target');
/** consumeWithFailover starts at floor(random × 3): 0.5 picks rabbit-2, so rabbit-1 (the setup's) stays up. */
const FROZEN: RabbitNode = 'rabbit-2';

describe('RabbitMQ cluster: the node dies while retry copies wait for their confirms', () => {
  const management = managementApi({ url: managementUrl('rabbit-1'), username: 'guest', password: 'guest' });
  const deliveries = new Map<string, number[]>();
  const succeeded = new Map<string, number>();
  const failovers: FailoverEvent[] = [];
  const errors: string[] = [];
  let consumer: FailoverConsumer | undefined;
  let frozenPid: number | undefined;

  beforeAll(async () => {
    const connection = await amqplib.connect(amqpUrl('rabbit-1'));
    const channel = await connection.createConfirmChannel();
    await declareTopology(channel, plan, management);
    const source = rabbit.exchanges.find((exchange) => exchange.role === 'source')?.name ?? '';
    for (let n = 0; n < MESSAGES; n++)
      await publishConfirmed(channel, source, 'work', Buffer.from(`{"id":"m-${n}"}`), {
        persistent: true,
        messageId: `m-${n}`,
      });
    await connection.close();
  });

  afterAll(async () => {
    await consumer?.stop().catch(() => undefined);
    // Wakes the node if the test failed while it was frozen, starts it if it was killed.
    await restoreCluster('rabbitmq');
    await rabbitTopology(plan, 'rabbit-1', 'delete');
  });

  it('publishes every cut-off copy again on another node: duplicates, and nothing lost', async () => {
    consumer = await consumeWithFailover(
      RABBIT_URLS,
      plan,
      async (message, { attempt }) => {
        const id = message.properties.messageId as string;
        deliveries.set(id, [...(deliveries.get(id) ?? []), attempt]);
        if (attempt === 1) {
          if (frozenPid === undefined) {
            frozenPid = rabbitPid(FROZEN);
            process.kill(frozenPid, 'SIGSTOP');
          }
          throw new TransientError('503 from the dependency');
        }
        succeeded.set(id, (succeeded.get(id) ?? 0) + 1);
      },
      {
        prefetch: 10,
        random: () => 0.5,
        onFailover: (event) => failovers.push(event),
        onError: (error) => errors.push(`${(error as { code?: string }).code}`),
      },
    );
    expect(consumer.url).toBe('amqp://127.0.0.1:5772');

    await waitFor(() => (frozenPid !== undefined ? true : undefined), 30_000, 'the first failure');
    await sleep(1_500);
    // Every message handled so far failed on the frozen node: its copy was sent, never confirmed.
    const cutOff = [...deliveries.keys()];
    await cluster('kill-node', FROZEN);

    await waitFor(() => (failovers.length > 0 ? true : undefined), 60_000, 'the consumer on another node');
    await waitFor(
      () => (succeeded.size === MESSAGES ? true : undefined),
      120_000,
      'every message to succeed at attempt 2',
      250,
    ).catch(() => undefined);

    const lost = Array.from({ length: MESSAGES }, (_, n) => `m-${n}`).filter((id) => !succeeded.has(id));
    const again = cutOff.filter((id) => (deliveries.get(id) ?? []).filter((each) => each === 1).length >= 2);
    console.log(
      `in-flight report ${JSON.stringify({
        cutOff: cutOff.length,
        deliveredAgainAtAttempt1: again.length,
        duplicateSuccesses: [...succeeded.values()].filter((count) => count > 1).length,
        failovers: failovers.map(({ from, to, downMs }) => ({ from, to, downMs })),
        consumerErrors: errors,
        lost,
      })}`,
    );

    expect(cutOff.length, 'messages were being handled when the node froze').toBeGreaterThan(0);
    expect(failovers[0]?.from).toContain(':5772');
    expect(lost, 'lost messages').toEqual([]);
    // The cut-off copies were never confirmed, so each cut-off message came back at attempt 1.
    expect(again.sort()).toEqual([...cutOff].sort());
  });
});
