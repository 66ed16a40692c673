import type { ClassificationPlan, DeliveryRules } from '../policy/plan/types';
import { drawWait, honourRetryAfter } from './backoff';
import { classify } from './classify';
import type { Random } from './clock';
import { retryAfterOf } from './retry-after';

/**
 * The one decision every broker adapter carries out. Pure: the clock's reading and the random
 * source come in as arguments.
 *
 * | kind           | RabbitMQ                         | Kafka                        | Service Bus              |
 * | ack            | basic.ack                        | commit the offset            | complete                 |
 * | immediate      | wait in memory, call again       | same                         | same                     |
 * | delayed        | copy to the wait level, then ack | produce to retry topic, then commit | schedule a copy, then complete |
 * | dead-letter    | publish to the DLX, then ack     | produce to the DLT, then commit | deadLetterMessage     |
 */
export type Decision =
  | { kind: 'ack' }
  | { kind: 'immediate'; delayMs: number; retry: number }
  | { kind: 'delayed'; level: number; delayMs: number; destination: string; nextAttempt: number }
  | { kind: 'dead-letter'; reason: DeadLetterReason; because: string };

/** Why a message went to the dead letter. */
export type DeadLetterReason = 'permanent' | 'exhausted';

/** What one target's plan says about deliveries, plus the policy's classification. */
export interface TargetRules extends DeliveryRules {
  classification: ClassificationPlan;
}

export interface DecisionInput {
  /** This delivery's attempt, from 1. */
  attempt: number;
  /** Immediate retries already made inside this delivery. */
  immediateRetries: number;
  /** What the handler threw; undefined when it succeeded. */
  error?: unknown;
  now: number;
  random: Random;
}

export function decide(rules: TargetRules, input: DecisionInput): Decision {
  if (!('error' in input) || input.error === undefined) return { kind: 'ack' };
  const verdict = classify(input.error, rules.classification);
  if (verdict.kind === 'permanent')
    return { kind: 'dead-letter', reason: 'permanent', because: verdict.because };

  const retryAfter = retryAfterOf(input.error, input.now);
  const immediate = rules.immediate;
  // An in-memory retry a server has asked us not to make (Retry-After beyond it) is skipped.
  const serverWaitsLonger = retryAfter !== undefined && retryAfter > immediate.waitMs.max;
  if (input.immediateRetries < immediate.retries && !serverWaitsLonger) {
    return {
      kind: 'immediate',
      delayMs: honourRetryAfter(drawWait(immediate.waitMs, input.random), immediate.waitMs, retryAfter),
      retry: input.immediateRetries + 1,
    };
  }

  // Level n is the wait before attempt n + 1.
  const level = rules.levels[input.attempt - 1];
  if (input.attempt >= rules.maxAttempts || !level) {
    return {
      kind: 'dead-letter',
      reason: 'exhausted',
      because: `${verdict.because}; attempt ${input.attempt} of ${rules.maxAttempts}`,
    };
  }
  return {
    kind: 'delayed',
    level: level.level,
    delayMs: honourRetryAfter(drawWait(level.waitMs, input.random), level.waitMs, retryAfter),
    destination: level.destination,
    nextAttempt: input.attempt + 1,
  };
}
