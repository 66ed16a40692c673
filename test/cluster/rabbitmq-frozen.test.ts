import amqplib from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../policy';
import { consumeWithFailover, type FailoverConsumer, type FailoverEvent } from '../../runtime/rabbitmq';
import { publishConfirmed } from '../../runtime/rabbitmq/confirm';
import {
  amqpUrl,
  clusterPlan,
  RABBIT_URLS,
  type RabbitNode,
  rabbitPid,
  rabbitTopology,
  restoreCluster,
  uniqueName,
  waitFor,
} from './support';

/**
 * The node a consumer is connected to freezes (SIGSTOP): its connection neither closes nor
 * answers. consumeWithFailover, with its defaults only, must notice (the heartbeat) and consume
 * on another node while that node is still frozen. Before the default heartbeat, nothing was
 * consumed after such a freeze.
 *
 * The queues are led by rabbit-1 (declared through it: client-local leaders), so publishing goes
 * on through the freeze. The node is woken once the new session consumed, well within Erlang's
 * net_ticktime (60 s): frozen longer, the others count it as gone and the cluster partitions when
 * it wakes. Deliveries the frozen node's channel had taken reach the new session after the wake,
 * when the dead connection's messages go back to the queue.
 */

const MESSAGES = 10;
const name = uniqueName('frozen');
const plan: RetryPlan = clusterPlan(name, 'frozen', ['1s'], 'rabbitmq');
const rabbit = plan.targets.rabbitmq;
if (!rabbit) throw new Error('no rabbitmq target');
/** consumeWithFailover starts at floor(random × 3): 0.5 picks rabbit-2; rabbit-1 publishes. */
const FROZEN: RabbitNode = 'rabbit-2';
const source = rabbit.exchanges.find((exchange) => exchange.role === 'source')?.name ?? '';

async function publishAll(ids: string[]): Promise<void> {
  const connection = await amqplib.connect(amqpUrl('rabbit-1'));
  const channel = await connection.createConfirmChannel();
  for (const id of ids)
    await publishConfirmed(channel, source, 'work', Buffer.from(`{"id":"${id}"}`), {
      persistent: true,
      messageId: id,
    });
  await connection.close();
}

describe('RabbitMQ cluster: the node consumed from freezes and stays frozen', () => {
  const handled = new Set<string>();
  const failovers: Array<FailoverEvent & { at: number }> = [];
  let consumer: FailoverConsumer | undefined;

  // Through rabbit-1, so its quorum queues are led there (client-local), not by the frozen node.
  beforeAll(() => rabbitTopology(plan, 'rabbit-1', 'declare'));

  afterAll(async () => {
    await consumer?.stop().catch(() => undefined);
    // Wakes the frozen node (and starts any node a failure left down).
    await restoreCluster('rabbitmq');
    await rabbitTopology(plan, 'rabbit-1', 'delete');
  });

  it('consumes on another node while the node is still frozen, and gets every message', async () => {
    consumer = await consumeWithFailover(
      RABBIT_URLS,
      plan,
      async (message) => void handled.add(message.properties.messageId as string),
      { random: () => 0.5, onFailover: (event) => failovers.push({ ...event, at: Date.now() }) },
    );
    expect(consumer.url).toBe('amqp://127.0.0.1:5772');
    await publishAll(['before']);
    await waitFor(() => (handled.has('before') ? true : undefined), 60_000, 'the first message');

    const frozenPid = rabbitPid(FROZEN);
    const frozenAt = Date.now();
    process.kill(frozenPid, 'SIGSTOP');
    let consumedWhileFrozen: string[] = [];
    try {
      // Some of these may go to the frozen node's channel, up to its prefetch.
      const before = Array.from({ length: MESSAGES }, (_, n) => `m-${n}`);
      await publishAll(before);
      await waitFor(() => (failovers.length > 0 ? true : undefined), 40_000, 'the consumer on another node');
      // Published once the consumer is on another node: consumed there, the node still frozen.
      const after = ['after-1', 'after-2', 'after-3'];
      await publishAll(after);
      await waitFor(
        () => (after.every((id) => handled.has(id)) ? true : undefined),
        40_000,
        'the messages published after the failover',
        100,
      );
      consumedWhileFrozen = [...handled].filter((id) => id !== 'before');
    } finally {
      process.kill(frozenPid, 'SIGCONT');
    }
    const frozenForMs = Date.now() - frozenAt;
    const all = [...Array.from({ length: MESSAGES }, (_, n) => `m-${n}`), 'after-1', 'after-2', 'after-3'];
    await waitFor(
      () => (all.every((id) => handled.has(id)) ? true : undefined),
      120_000,
      "every message, the frozen channel's ones after the wake",
      250,
    );
    console.log(
      `frozen-node report ${JSON.stringify({
        failovers: failovers.map(({ from, to, downMs, at }) => ({
          from,
          to,
          downMs,
          afterFreezeMs: at - frozenAt,
        })),
        frozenForMs,
        consumedWhileFrozen: consumedWhileFrozen.length,
        allHandledAfterMs: Date.now() - frozenAt,
      })}`,
    );
    expect(failovers[0]?.from).toContain(':5772');
  });
});
