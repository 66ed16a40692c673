import type { Jitter, Policy } from '../types';
import type { DeliveryRules, Level, RangeMs, Stage } from './types';

/**
 * The arithmetic of a policy: delays per level, jitter ranges, windows and amplification.
 * Rules and planners share it so a number is computed once, the same way everywhere.
 */

/** Brokers hold a delay in an unsigned 32-bit millisecond field (~49.7 days). */
export const MAX_LEVEL_DELAY_MS = 2 ** 32 - 1;

/** The policy's wait before each delayed retry: level n is the wait before attempt n + 1. */
export function policyDelays(policy: Policy): number[] {
  const levels = policy.maxAttempts - 1;
  const { backoff } = policy;
  if (backoff.type === 'list') return backoff.delaysMs.slice(0, levels);
  return exponentialDelays(backoff, levels);
}

/** initial × multiplier^(n−1), capped. Shared by the plan and the runtime's call retry helper. */
export function exponentialDelays(
  backoff: { initialMs: number; multiplier: number; maxMs?: number | undefined },
  count: number,
): number[] {
  const delays: number[] = [];
  for (let n = 1; n <= count; n++) {
    // Clamp before rounding so a huge multiplier cannot overflow to Infinity.
    const raw = Math.min(backoff.initialMs * backoff.multiplier ** (n - 1), Number.MAX_SAFE_INTEGER);
    delays.push(Math.round(backoff.maxMs === undefined ? raw : Math.min(raw, backoff.maxMs)));
  }
  return delays;
}

/** The range a jittered wait falls in. Full jitter: [0, d]. Equal jitter: [d/2, d]. */
export function jitterRange(delayMs: number, jitter: Jitter): RangeMs {
  switch (jitter) {
    case 'none':
      return { min: delayMs, max: delayMs };
    case 'full':
      return { min: 0, max: delayMs };
    case 'equal':
      return { min: Math.ceil(delayMs / 2), max: delayMs };
  }
}

export function fixedRange(delayMs: number): RangeMs {
  return { min: delayMs, max: delayMs };
}

/** In-memory waiting inside one delivery: every immediate retry's pause added up. */
export function inMemoryRange(policy: Policy): RangeMs {
  const one = jitterRange(policy.immediate.delayMs, policy.jitter);
  return { min: one.min * policy.immediate.retries, max: one.max * policy.immediate.retries };
}

/** quorum-delayed-retry waits min(min × deliveryCount, max): linear, no jitter (RabbitMQ 4.3). */
export function linearDelays(delays: readonly number[]): number[] {
  const first = delays[0] ?? 0;
  const cap = Math.max(first, ...delays);
  return delays.map((_, index) => Math.min(first * (index + 1), cap));
}

/** Calls one message can make to the dependency in the worst case. */
export function amplification(policy: Policy) {
  const deliveries = policy.maxAttempts;
  const perDelivery = 1 + policy.immediate.retries;
  const inner = policy.innerLayers.reduce((product, layer) => product * layer.attempts, 1);
  return {
    deliveries,
    perDelivery,
    inner,
    total: deliveries * perDelivery * inner,
    budget: policy.amplificationBudget,
  };
}

function add(a: RangeMs, b: RangeMs): RangeMs {
  return { min: a.min + b.min, max: a.max + b.max };
}

/** The attempt-by-attempt timeline for one target, given the waits that target applies. */
export function deliveryRules(
  policy: Policy,
  levels: Level[],
  jitterApplied: boolean,
  deadLetter: string,
): DeliveryRules {
  const inMemory = inMemoryRange(policy);
  const stages: Stage[] = [{ attempt: 1, waitMs: fixedRange(0), windowMs: fixedRange(0), via: '' }];
  let window = fixedRange(0);
  for (const level of levels) {
    window = add(add(window, inMemory), level.waitMs);
    stages.push({ attempt: level.level + 1, waitMs: level.waitMs, windowMs: window, via: level.destination });
  }
  return {
    maxAttempts: policy.maxAttempts,
    immediate: {
      retries: policy.immediate.retries,
      delayMs: policy.immediate.delayMs,
      waitMs: jitterRange(policy.immediate.delayMs, policy.jitter),
    },
    jitter: policy.jitter,
    jitterApplied,
    levels,
    stages,
    retryWindowMs: add(window, inMemory),
    deadLetter,
  };
}
