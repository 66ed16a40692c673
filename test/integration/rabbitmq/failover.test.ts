import { afterEach, describe, expect, it } from 'vitest';
import { consumeWithFailover, type FailoverEvent } from '../../../runtime/rabbitmq';
import { withoutCredentials } from '../../../runtime/rabbitmq/failover';
import { NodeProxy } from './silent-node';
import { AMQP_URL, body, connect, publish, rabbitPlan, uniqueName, waitFor, withTopology } from './support';

/**
 * consumeWithFailover with its default connect, past nodes that accept a connection and never
 * answer. Each "node" is a proxy in front of the one real broker (silent-node.ts), so a node can
 * be silent from the start, killed, or frozen mid-session, while the broker behind stays up for
 * the rest of the suite. Without a connect timeout and a heartbeat, each case consumed nothing
 * for good.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const broker = new URL(AMQP_URL);
const target = { host: broker.hostname, port: Number(broker.port || 5672) };

async function node(options: { silent?: boolean } = {}): Promise<NodeProxy> {
  const proxy = await NodeProxy.start(target, options);
  cleanups.push(() => proxy.close());
  return proxy;
}

async function setUp(name: string, urls: string[]) {
  const plan = rabbitPlan(uniqueName(name));
  cleanups.push(await withTopology(plan));
  const publisher = await connect();
  cleanups.push(() => publisher.close());
  const handled: string[] = [];
  const failovers: FailoverEvent[] = [];
  const connectErrors: unknown[] = [];
  // Starts at the first URL (random 0), with every other setting at its default.
  const consumer = await consumeWithFailover(
    urls,
    plan,
    async (message) => void handled.push(body(message).id),
    {
      random: () => 0,
      onFailover: (event) => failovers.push(event),
      onConnectError: (error) => connectErrors.push(error),
    },
  );
  cleanups.push(() => consumer.stop());
  const consumed = (id: string) =>
    waitFor(() => (handled.includes(id) ? true : undefined), 60_000, `${id} consumed`);
  return { plan, publisher, handled, failovers, connectErrors, consumer, consumed };
}

describe('consumeWithFailover past a node that never answers', () => {
  it('a silent listener first in the list: times out and consumes on the next node', async () => {
    const silent = await node({ silent: true });
    const { plan, publisher, connectErrors, consumer, consumed } = await setUp('silent-first', [
      silent.url(),
      AMQP_URL,
    ]);
    expect(connectErrors).toHaveLength(1);
    expect(consumer.url).toBe(withoutCredentials(AMQP_URL));
    await publish(publisher, plan, { id: 'm-1' });
    await consumed('m-1');
  });

  it('a silent listener next after a killed node: fails over past it to a node that answers', async () => {
    const first = await node();
    const silent = await node({ silent: true });
    const { plan, publisher, failovers, connectErrors, consumed } = await setUp('silent-next', [
      first.url(),
      silent.url(),
      AMQP_URL,
    ]);
    await publish(publisher, plan, { id: 'm-1' });
    await consumed('m-1');
    await first.kill();
    await waitFor(() => (failovers.length > 0 ? true : undefined), 60_000, 'the failover');
    expect(failovers[0]?.to).toBe(withoutCredentials(AMQP_URL));
    expect(connectErrors).toHaveLength(1);
    await publish(publisher, plan, { id: 'm-2' });
    await consumed('m-2');
  });

  it('the node consumed from freezes mid-session: the heartbeat notices, and its messages are consumed on the next node', async () => {
    const first = await node();
    const { plan, publisher, failovers, handled, consumed } = await setUp('frozen', [first.url(), AMQP_URL]);
    await publish(publisher, plan, { id: 'm-1' });
    await consumed('m-1');
    first.freeze();
    // Published while the node is frozen: the broker may give it to the frozen session, and takes
    // it back once it notices that session is gone.
    await publish(publisher, plan, { id: 'm-2' });
    await consumed('m-2');
    expect(failovers).toHaveLength(1);
    expect(handled.filter((id) => id === 'm-2')).toHaveLength(1);
  });
});
