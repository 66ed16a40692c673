import { derivePlan, type PolicyInput, parsePolicy, type RetryPlan } from '../../policy';

type Spec = PolicyInput['spec'];

/**
 * The billing policy the acceptance runs use: 4 attempts, waits of 1 s, 2 s and 4 s without jitter, a 503 is
 * transient, an invalid currency permanent. Tests pass the targets they run on and any change.
 */
export function billingPolicy(
  name: string,
  targets: Spec['targets'],
  changes: Partial<Spec> = {},
): PolicyInput {
  return {
    apiVersion: 'retry-topology/v1',
    kind: 'RetryPolicy',
    metadata: { name },
    spec: {
      consumer: 'billing',
      maxAttempts: 4,
      backoff: { type: 'list', delays: ['1s', '2s', '4s'] },
      jitter: 'none',
      classify: { presets: ['http-transient'], permanent: { errorNames: ['InvalidCurrencyError'] } },
      idempotency: { idempotent: true, key: 'orderId' },
      targets,
      ...changes,
    },
  };
}

export function billingPlanFor(
  name: string,
  targets: Spec['targets'],
  changes: Partial<Spec> = {},
): RetryPlan {
  return derivePlan(parsePolicy(billingPolicy(name, targets, changes)));
}
