import type { TargetName } from '../policy/plan/targets';
import type { RetryPlan } from '../policy/plan/types';
import type { TargetRules } from './decide';
import { RetryTopologyError } from './errors';

/** One target's delivery rules from a plan, with the policy's classification. */
export function targetRules<T extends TargetName>(
  plan: RetryPlan,
  target: T,
): TargetRules & NonNullable<RetryPlan['targets'][T]> {
  const rules = plan.targets[target];
  if (!rules) {
    throw new RetryTopologyError('no-target', `the plan for "${plan.policy}" has no ${target} target`);
  }
  return { ...rules, classification: plan.classification } as TargetRules &
    NonNullable<RetryPlan['targets'][T]>;
}
