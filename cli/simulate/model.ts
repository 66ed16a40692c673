import { decide, type Random, type TargetRules, TransientError } from '../../runtime';

/**
 * What a dependency sees when it comes back after an outage.
 *
 * Model (each point is an assumption a reviewer can check):
 * - The outage lasts [0, outageMs). Messages arrive evenly at `ratePerSecond` during it, plus
 *   `backlog` messages that were waiting when it began and are all delivered at time 0.
 * - Every call fails while the outage lasts and succeeds from outageMs on. A call takes no time,
 *   and the consumer keeps up (no queueing in front of the handler).
 * - Each failure is decided by the runtime's own decide(): in-memory retries first, then the next
 *   delayed level, its wait drawn by drawWait from the level's range with a seeded random
 *   source; at maxAttempts the message is dead-lettered.
 * - "Comes back" means nothing is replayed: a message still waiting keeps its own schedule, and
 *   its next call (a retry) is the first to succeed. Messages dead-lettered during the outage stay
 *   in the dead letter; they are counted, not retried.
 *
 * One pass per message, a handful of steps each: 60,000 messages take milliseconds.
 */

export interface SimulationInput {
  rules: TargetRules;
  outageMs: number;
  ratePerSecond: number;
  backlog: number;
  random: Random;
}

export interface SimulationRun {
  messages: number;
  /** Exhausted every attempt while the outage lasted. */
  deadLettered: number;
  /** Times (ms after recovery) of the retries that reached the recovered dependency, unsorted. */
  retriesAfterRecovery: number[];
}

const OUTAGE = new TransientError('the dependency is down');

function follow(arrivalMs: number, input: SimulationInput, run: SimulationRun): void {
  const { rules, outageMs, random } = input;
  let now = arrivalMs;
  let attempt = 1;
  let immediateRetries = 0;
  for (;;) {
    if (now >= outageMs) {
      // Only a retry can land after recovery: every first delivery happened during the outage.
      run.retriesAfterRecovery.push(now - outageMs);
      return;
    }
    const decision = decide(rules, { attempt, immediateRetries, error: OUTAGE, now, random });
    switch (decision.kind) {
      case 'immediate':
        now += decision.delayMs;
        immediateRetries = decision.retry;
        break;
      case 'delayed':
        now += decision.delayMs;
        attempt = decision.nextAttempt;
        immediateRetries = 0;
        break;
      case 'dead-letter':
        run.deadLettered++;
        return;
      case 'ack':
        // decide() acks only a success; the outage never gives one. Nothing reaches the dependency.
        return;
    }
  }
}

export function simulate(input: SimulationInput): SimulationRun {
  const run: SimulationRun = { messages: 0, deadLettered: 0, retriesAfterRecovery: [] };
  const arriving = Math.round((input.ratePerSecond * input.outageMs) / 1_000);
  const spacingMs = 1_000 / input.ratePerSecond;
  for (let index = 0; index < input.backlog; index++) follow(0, input, run);
  for (let index = 0; index < arriving; index++) follow(index * spacingMs, input, run);
  run.messages = input.backlog + arriving;
  return run;
}
