import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerVersion, management, rabbitPlan, uniqueName, waitFor, withTopology } from './support';

/**
 * What the broker reports for each declared queue matches the plan: the queue's arguments are
 * exactly the plan's, and the effective policy is the plan's policy for that queue.
 */
const MODES = [
  ['ttl-queues', '3.10.8'],
  ['quorum-delayed-retry', '4.3.0'],
  ['delivery-time', '4.4.0'],
] as const;

describe('declared topology read back through the management API', async () => {
  // declareTopology refuses a broker older than the plan's brokerVersion (broker-too-old), so
  // each mode is read back only on the brokers that have it, and skipped by name on the others.
  const broker = await brokerVersion();
  for (const [mode, brokerVersion] of MODES) {
    const since = brokerVersion.split('.').slice(0, 2).join('.');
    describe.skipIf(!broker.at(brokerVersion.split('.').map(Number)))(
      `${mode} (RabbitMQ ${since} and later only)`,
      () => readBack(mode, brokerVersion),
    );
  }
});

function readBack(mode: string, brokerVersion: string): void {
  const plan = rabbitPlan(
    uniqueName('readback'),
    { messageTtl: '1h' },
    { mode, brokerVersion, waitQueueMaxLength: 5000 },
  );
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  let remove: () => Promise<void>;
  beforeAll(async () => {
    remove = await withTopology(plan);
  });
  afterAll(async () => remove?.());

  it.each(rabbit.queues.map((queue) => [queue.role, queue.name, queue] as const))(
    '%s queue %s',
    async (_role, name, spec) => {
      // effective_policy_definition appears once the management stats catch up (about 5 s).
      const queue = await waitFor(
        async () => {
          const found = await management.getQueue(rabbit.vhost, name);
          return found && 'effective_policy_definition' in found ? found : undefined;
        },
        15_000,
        `stats for ${name}`,
      );
      expect(queue).toMatchObject({
        type: 'quorum',
        durable: true,
        auto_delete: false,
        arguments: spec.arguments,
        policy: spec.policy,
      });
      const policy = rabbit.policies.find((each) => each.name === spec.policy);
      expect(queue.effective_policy_definition).toEqual(policy?.definition);
      // Numbers arrive as numbers (a TTL sent as text is refused by the broker).
      for (const [key, value] of Object.entries(policy?.definition ?? {})) {
        expect(typeof (queue.effective_policy_definition as Record<string, unknown>)[key]).toBe(typeof value);
      }
    },
  );

  it('stores each policy as planned', async () => {
    for (const spec of rabbit.policies) {
      const stored = await management.getPolicy(rabbit.vhost, spec.name);
      expect(stored).toMatchObject({
        pattern: spec.pattern,
        priority: spec.priority,
        'apply-to': spec.applyTo,
        definition: spec.definition,
      });
    }
  });
}
