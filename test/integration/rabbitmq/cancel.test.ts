import { afterEach, describe, expect, it } from 'vitest';
import { RetryTopologyError } from '../../../runtime';
import { consumeWithRetries, declareTopology } from '../../../runtime/rabbitmq';
import { body, connect, management, publish, rabbitPlan, uniqueName, waitFor, withTopology } from './support';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const codeOf = (error: unknown) => (error instanceof RetryTopologyError ? error.code : error);

async function setUp(name: string) {
  const plan = rabbitPlan(uniqueName(name));
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  cleanups.push(await withTopology(plan));
  const admin = await connect();
  cleanups.push(() => admin.close());
  const worker = await connect();
  cleanups.push(() => worker.close());
  return { plan, rabbit, admin, worker };
}

describe('a consumer the broker ends, on a real RabbitMQ', () => {
  it('its queue deleted under it: onCancel, closed rejects with consumer-cancelled, and the app can consume again', async () => {
    const { plan, rabbit, admin, worker } = await setUp('cancel');
    const channelErrors: unknown[] = [];
    worker.channel.on('error', (error) => channelErrors.push(error));
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    const handled: string[] = [];
    const cancels: unknown[] = [];
    const consumer = await consumeWithRetries(
      worker.channel,
      plan,
      async (message) => {
        started.push(body(message).id);
        if (body(message).id === 'held') await released;
        handled.push(body(message).id);
      },
      { onCancel: (error) => cancels.push(error) },
    );
    await publish(admin, plan, { id: 'held' });
    await waitFor(() => (started.length === 1 ? true : undefined), 10_000, 'the handler running');
    expect(cancels).toEqual([]);

    await admin.channel.deleteQueue(rabbit.mainQueue);
    await waitFor(() => (cancels.length === 1 ? true : undefined), 10_000, 'the broker’s cancel');
    expect(codeOf(cancels[0])).toBe('consumer-cancelled');
    release();
    await expect(consumer.closed).rejects.toMatchObject({ code: 'consumer-cancelled' });
    expect(handled).toEqual(['held']);

    // Re-declared, and consumed again on the same channel: it is still open and works.
    await declareTopology(admin.channel, plan, management);
    const again = await consumeWithRetries(worker.channel, plan, async (message) => {
      handled.push(body(message).id);
    });
    cleanups.push(() => again.stop());
    await publish(admin, plan, { id: 'after' });
    await waitFor(
      () => (handled.includes('after') ? true : undefined),
      10_000,
      'the message after re-consuming',
    );
    expect(channelErrors).toEqual([]);
  });

  it('its channel closed by the broker: closed rejects with channel-closed', async () => {
    const { plan, worker } = await setUp('closed');
    const consumer = await consumeWithRetries(worker.channel, plan, async () => {});
    // Any channel error closes the channel: here a passive declare of a queue that is not there.
    await worker.channel.checkQueue(uniqueName('absent')).catch(() => undefined);
    await expect(consumer.closed).rejects.toMatchObject({ code: 'channel-closed' });
    await consumer.stop(); // safe after the end
  });
});
