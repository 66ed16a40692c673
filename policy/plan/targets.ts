import type { RetryPlan } from './types';

/**
 * The brokers a policy can target, in the order every listing uses: the plan's text, the
 * components' `targets` output, the CLI's messages. The policy, the runtime, the components and
 * the CLI all read this one list.
 */
export const TARGETS = ['rabbitmq', 'kafka', 'serviceBus'] as const satisfies readonly TargetName[];

/** A target as the policy and the plan spell it: `rabbitmq`, `kafka` or `serviceBus`. */
export type TargetName = keyof RetryPlan['targets'];
