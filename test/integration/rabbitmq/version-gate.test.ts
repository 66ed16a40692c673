import { afterAll, describe, expect, it } from 'vitest';
import { RetryTopologyError } from '../../../runtime';
import { consumeWithRetries, declareTopology } from '../../../runtime/rabbitmq';
import { brokerVersion, connect, management, rabbitPlan, uniqueName } from './support';

async function codeOf(run: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await run();
  } catch (error) {
    if (error instanceof RetryTopologyError) return error.code;
    throw error;
  }
  return undefined;
}

/**
 * Features gated by version fail loudly on an older broker, twice over: the plan keeps the
 * quorum-delayed-retry settings in a policy, which a broker that does not know them refuses
 * (as queue arguments 3.10.8 would accept and ignore them), and the runtime refuses to consume
 * from, or declare on, a broker older than the plan needs.
 */
describe('version gates', async () => {
  // Read while the tests are collected, so a test that does not apply is skipped by name.
  const broker = await brokerVersion();
  const before43 = !broker.at([4, 3]);
  const gated = rabbitPlan(uniqueName('gate'), {}, { mode: 'quorum-delayed-retry', brokerVersion: '4.3.0' });
  const main = gated.targets.rabbitmq?.policies[0];
  if (!main) throw new Error('no main queue policy');
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it.skipIf(!before43)(
    'before 4.3 only: a policy with delayed-retry settings is refused, not ignored',
    async () => {
      expect(main.definition['delayed-retry-type']).toBe('failed');
      await expect(management.putPolicy('/', main)).rejects.toThrow(/not recognised policy settings/);
    },
  );

  it.skipIf(!before43)(
    'before 4.3 only: consuming or declaring a quorum-delayed-retry plan throws broker-too-old',
    async () => {
      const client = await connect();
      cleanups.push(() => client.close());
      expect(await codeOf(() => declareTopology(client.channel, gated, management))).toBe('broker-too-old');
      expect(await codeOf(() => consumeWithRetries(client.channel, gated, async () => {}))).toBe(
        'broker-too-old',
      );
      // Refused before anything reached the broker.
      expect(await management.getPolicy('/', main.name)).toBeUndefined();
    },
  );

  it.skipIf(before43)('4.3 and later only: the same policy is taken and applies to the queue', async () => {
    const client = await connect();
    cleanups.push(() => client.close());
    await declareTopology(client.channel, gated, management);
    const rabbit = gated.targets.rabbitmq;
    if (!rabbit) throw new Error('no rabbitmq target');
    cleanups.push(async () => {
      for (const queue of rabbit.queues) await client.channel.deleteQueue(queue.name).catch(() => undefined);
      for (const policy of rabbit.policies) await management.deletePolicy('/', policy.name);
    });
    expect(await management.getPolicy('/', main.name)).toMatchObject({ definition: main.definition });
  });

  it('a plan stating a newer broker than this one throws broker-too-old, naming both versions', async () => {
    const newer = rabbitPlan(uniqueName('newer'), {}, { brokerVersion: '9.0.0' });
    const client = await connect();
    cleanups.push(() => client.close());
    const error = await consumeWithRetries(client.channel, newer, async () => {}).catch((caught) => caught);
    expect(error).toBeInstanceOf(RetryTopologyError);
    expect(error).toMatchObject({ code: 'broker-too-old' });
    expect(String(error.message)).toContain(`RabbitMQ ${broker.text} is older than 9.0.0`);
  });
});
