import { PLAN_VERSION, type RetryPlan } from '../policy';
import { TARGETS, type TargetName } from '../policy/plan/targets';
import { TopologyError } from './errors';

export type { TargetName };
/** Every target, in the order rabbitmq, kafka, serviceBus. */
export const TARGET_NAMES: readonly TargetName[] = TARGETS;

/**
 * The plan exactly as `retry-topology plan --format json` prints it (sorted keys, two-space
 * indent), so an application can load the plan it was provisioned with and compare it byte for byte.
 */
export function planJson(plan: RetryPlan): string {
  return JSON.stringify(plan, null, 2);
}

/** The target's part of the plan; refuses a plan of another version or one that lacks the target. */
export function requireTarget<T extends TargetName>(
  plan: RetryPlan,
  target: T,
): NonNullable<RetryPlan['targets'][T]> {
  if (plan.planVersion !== PLAN_VERSION) {
    throw new TopologyError(
      'plan-version-mismatch',
      `args.plan.planVersion is ${String(plan.planVersion)}, these components read version ${PLAN_VERSION}: derive the plan with the same retry-topology version`,
    );
  }
  const part = plan.targets[target];
  if (!part) {
    throw new TopologyError(
      'target-not-in-plan',
      `policy "${plan.policy}" has no ${target} target (args.plan.targets.${target} is missing): add spec.targets.${target} to the policy or leave this component out`,
    );
  }
  return part as NonNullable<RetryPlan['targets'][T]>;
}
