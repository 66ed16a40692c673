import { afterEach, describe, expect, it } from 'vitest';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import { body, connect, drain, http503, rabbitPlan, uniqueName, waitFor, withTopology } from './support';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a full wait level on a real RabbitMQ', () => {
  it('40 copies through a level of max-length 5 and 300 ms: every one arrives once, none lost', async () => {
    const plan = rabbitPlan(
      uniqueName('full-level'),
      { maxAttempts: 2, backoff: { type: 'list', delays: ['300ms'] } },
      { waitQueueMaxLength: 5 },
    );
    const rabbit = plan.targets.rabbitmq;
    if (!rabbit) throw new Error('no rabbitmq target');
    cleanups.push(await withTopology(plan));
    const broker = await connect();
    cleanups.push(() => broker.close());
    // All 40 wait in the main queue first, so their copies reach the level together.
    for (let index = 0; index < 40; index++)
      broker.channel.sendToQueue(rabbit.mainQueue, Buffer.from(JSON.stringify({ id: `m-${index}` })), {
        persistent: true,
      });
    await broker.channel.waitForConfirms();

    const worker = await connect();
    cleanups.push(() => worker.close());
    const second: string[] = [];
    let refusals = 0;
    const consumer = await consumeWithRetries(
      worker.channel,
      plan,
      async (message, { attempt }) => {
        if (attempt === 1) throw http503();
        second.push(body(message).id);
      },
      { prefetch: 40, onError: () => refusals++ },
    );
    cleanups.push(() => consumer.stop());
    await waitFor(() => (second.length >= 40 ? true : undefined), 60_000, 'all 40 on attempt 2');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(second.sort()).toEqual(Array.from({ length: 40 }, (_, index) => `m-${index}`).sort());
    for (const queue of [rabbit.mainQueue, rabbit.levels[0]?.destination ?? '', rabbit.deadLetterQueue])
      expect(await drain(broker, queue)).toEqual([]);
    // Held copies are tried one at a time per level, not all at every step.
    expect(refusals).toBeLessThan(40 * 10);
  });
});
