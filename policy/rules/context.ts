import type { Issue } from '../issues';
import { inMemoryRange, linearDelays, policyDelays } from '../plan/timeline';
import type { RangeMs } from '../plan/types';
import type { Policy } from '../types';

/** What every rule reads: the policy and the numbers derived from it once. */
export interface RuleContext {
  policy: Policy;
  /** The policy's wait per level, before any target's mechanism. */
  delays: number[];
  /** In-memory waiting inside one delivery. */
  inMemory: RangeMs;
  /** Worst-case time from the first delivery to the dead letter, handler time excluded. */
  windowMaxMs: number;
}

export type Rule = (context: RuleContext) => Issue[];

/** Worst-case time from the first delivery to the dead letter, handler time excluded. */
function windowMax(policy: Policy, delays: number[], inMemory: RangeMs): number {
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  // Jitter only shortens a wait, but the broker's linear delayed retry can lengthen one
  // ([10s, 1s, 1s] waits 10 s three times): the window is the longest any target applies.
  const linear = policy.targets.rabbitmq?.mode === 'quorum-delayed-retry' ? sum(linearDelays(delays)) : 0;
  return Math.max(sum(delays), linear) + policy.maxAttempts * inMemory.max;
}

/**
 * The derived numbers are computed when a rule first asks for them: on a policy with parts the
 * schema refused (parts.ts), a number that needs one of them throws, and only the rules that use
 * it are skipped.
 */
export function ruleContext(policy: Policy): RuleContext {
  let delays: number[] | undefined;
  let inMemory: RangeMs | undefined;
  let windowMaxMs: number | undefined;
  return {
    policy,
    get delays() {
      delays ??= policyDelays(policy);
      return delays;
    },
    get inMemory() {
      inMemory ??= inMemoryRange(policy);
      return inMemory;
    },
    get windowMaxMs() {
      windowMaxMs ??= windowMax(policy, this.delays, this.inMemory);
      return windowMaxMs;
    },
  };
}

/**
 * The handler's own runs share a lock, a consumer timeout or a poll interval with the in-memory
 * waits. The policy cannot know how long the handler takes, so the waits may use half of it.
 */
export const IN_MEMORY_SHARE = 0.5;

/** In-memory retry holds the message unacked (a prefetch slot, a lock): keep it to a few seconds in total. */
export const IN_MEMORY_WARN_MS = 10_000;
