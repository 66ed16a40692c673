import fc from 'fast-check';
import type { PolicyInput } from '../../policy';
import { TARGETS } from '../../policy/plan/targets';

/** Valid policies across the option space; rules that need care (budgets, windows) are kept quiet. */
export const validPolicy: fc.Arbitrary<PolicyInput> = fc
  .record({
    // A leading letter: all-digit names are refused (name-invalid), which another test covers.
    name: fc.stringMatching(/^[a-z][a-z0-9._-]{0,40}[a-z0-9]$/),
    maxAttempts: fc.integer({ min: 1, max: 12 }),
    initialMs: fc.integer({ min: 1, max: 60_000 }),
    multiplier: fc.double({ min: 1, max: 5, noNaN: true }),
    capFactor: fc.option(fc.integer({ min: 1, max: 100 })),
    list: fc.boolean(),
    listDelays: fc.array(fc.integer({ min: 1, max: 600_000 }), { minLength: 12, maxLength: 12 }),
    jitter: fc.constantFrom('none', 'full', 'equal'),
    mode: fc.constantFrom('ttl-queues', 'quorum-delayed-retry', 'delivery-time'),
    targets: fc.subarray([...TARGETS], { minLength: 1 }),
    partitions: fc.integer({ min: 1, max: 64 }),
    sbEntity: fc.constantFrom('queue', 'subscription'),
  })
  .map((r) => {
    const backoff = r.list
      ? {
          type: 'list' as const,
          delays: r.listDelays.slice(0, Math.max(1, r.maxAttempts - 1)).map((ms) => `${ms}ms`),
        }
      : {
          type: 'exponential' as const,
          initial: `${r.initialMs}ms`,
          multiplier: r.multiplier,
          // Always a cap of at most a day, so the 32-bit delay limit and retention rules stay quiet.
          max: `${Math.min(r.initialMs * (r.capFactor ?? 10_000), 86_400_000)}ms`,
        };
    const targets: NonNullable<PolicyInput['spec']['targets']> = {};
    if (r.targets.includes('rabbitmq'))
      targets.rabbitmq = { exchange: 'orders', routingKey: 'order.#', mode: r.mode, brokerVersion: '4.4.0' };
    if (r.targets.includes('kafka'))
      targets.kafka = {
        topic: 'orders',
        consumerGroup: 'billing',
        partitions: r.partitions,
        retryRetention: '49d',
      };
    if (r.targets.includes('serviceBus'))
      targets.serviceBus =
        r.sbEntity === 'queue'
          ? { entity: 'queue', queue: 'orders-in' }
          : { entity: 'subscription', topic: 'orders', subscription: 'billing' };
    // A one-attempt policy has no levels, so the list form needs maxAttempts to match its delays.
    const maxAttempts = r.list ? Math.max(2, r.maxAttempts) : r.maxAttempts;
    return {
      apiVersion: 'retry-topology/v1',
      kind: 'RetryPolicy',
      metadata: { name: r.name },
      spec: {
        consumer: 'billing',
        maxAttempts,
        backoff,
        jitter: r.jitter,
        classify: { presets: ['http-transient'] },
        amplificationBudget: 1000,
        idempotency: { idempotent: true },
        targets,
      },
    } satisfies PolicyInput;
  });
