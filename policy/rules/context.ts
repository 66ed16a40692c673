import type { Issue } from '../issues';
import { inMemoryRange, policyDelays } from '../plan/timeline';
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

export function ruleContext(policy: Policy): RuleContext {
  const delays = policyDelays(policy);
  const inMemory = inMemoryRange(policy);
  const waits = delays.reduce((sum, delay) => sum + delay, 0);
  return { policy, delays, inMemory, windowMaxMs: waits + policy.maxAttempts * inMemory.max };
}

/**
 * The handler's own runs share a lock, a consumer timeout or a poll interval with the in-memory
 * waits. The policy cannot know how long the handler takes, so the waits may use half of it.
 */
export const IN_MEMORY_SHARE = 0.5;

/** Seed 002: keep in-memory retry short and few, a few seconds in total. */
export const IN_MEMORY_WARN_MS = 10_000;
