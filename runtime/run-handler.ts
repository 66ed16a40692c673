import type { Clock, Random } from './clock';
import { type Decision, decide, type TargetRules } from './decide';
import type { RetryMetrics } from './metrics';

const ACK: Decision = { kind: 'ack' };

/**
 * What the adapter does next. `requeue` happens only when the consumer stops mid-delivery: the
 * message goes back to the broker untouched (RabbitMQ: nack with requeue; Kafka: left
 * uncommitted; Service Bus: abandoned).
 */
export type FinalDecision = Exclude<Decision, { kind: 'immediate' }> | { kind: 'requeue' };

/** A handler call that failed: what it threw, and when it began and ended (the clock's readings). */
export interface HandlerFailure {
  error: unknown;
  started: number;
  ended: number;
}

export interface HandlerRun {
  decision: FinalDecision;
  /** The last error the handler threw, if the run ended in failure. */
  error?: unknown;
  handlerCalls: number;
}

/**
 * One delivery: call the handler, make the immediate retries the rules allow (in memory, short),
 * and return what the broker adapter must do with the message. Never throws.
 */
export async function runHandler(
  rules: TargetRules,
  options: {
    attempt: number;
    call: () => Promise<void>;
    clock: Clock;
    random: Random;
    metrics: RetryMetrics;
    /** The consumer's stop: ends an in-memory wait, and a failure once it aborted is not judged. */
    signal?: AbortSignal;
    /**
     * Asked before each in-memory wait. False ends this delivery's immediate retries: the decision
     * is made again as if they were used up (a delayed retry or the dead letter). An adapter says
     * false when the wait would outlast what holds the message (a Service Bus lock, a poll
     * interval). A hook that throws counts as false: the broker path is the safe one.
     */
    beforeImmediate?: (wait: { delayMs: number; retry: number }) => boolean | Promise<boolean>;
    /**
     * The first call, already made by the adapter and failed (the Kafka engine calls the handler
     * itself and comes here only on a failure): judged as if made here.
     */
    firstFailure?: HandlerFailure;
  },
): Promise<HandlerRun> {
  let immediateRetries = 0;
  let handlerCalls = 0;
  let given = options.firstFailure;
  for (;;) {
    let started: number;
    let ended: number;
    let error: unknown;
    let failed = false;
    handlerCalls++;
    if (given) {
      ({ started, ended } = given);
      failed = true;
      error = given.error ?? new Error('the handler threw undefined');
      given = undefined;
    } else {
      started = options.clock.now();
      try {
        await options.call();
      } catch (thrown) {
        failed = true;
        // A bare `throw undefined` is still a failure.
        error = thrown ?? new Error('the handler threw undefined');
      }
      ended = options.clock.now();
    }
    options.metrics.handlerDuration(ended - started, failed ? 'failure' : 'success');
    // A failure that ends once the consumer is stopping is the consumer's doing, not the
    // message's: a handler that passed the stop signal on (to fetch, a driver, a timer) rejects
    // with the signal's reason or an AbortError. It is given back untouched, on every runtime:
    // no retry copy, no dead letter, no attempt charged; the next consumer runs it at this attempt.
    if (failed && options.signal?.aborted) return { decision: { kind: 'requeue' }, error, handlerCalls };
    const decision = failed
      ? decide(rules, {
          attempt: options.attempt,
          immediateRetries,
          error,
          now: ended,
          random: options.random,
        })
      : ACK;
    if (decision.kind !== 'immediate') return { decision, ...(failed ? { error } : {}), handlerCalls };
    if (!(await mayWait(options.beforeImmediate, decision))) {
      const next = decide(rules, {
        attempt: options.attempt,
        immediateRetries: rules.immediate.retries,
        error,
        now: options.clock.now(),
        random: options.random,
      });
      // With the immediate retries counted as spent, decide never answers 'immediate'.
      if (next.kind !== 'immediate') return { decision: next, error, handlerCalls };
    }
    options.metrics.retryScheduled('immediate', 0);
    immediateRetries = decision.retry;
    try {
      await options.clock.sleep(decision.delayMs, options.signal);
    } catch {
      // The consumer is stopping in the middle of an in-memory wait: give the message back to
      // the broker untouched, for another consumer (or this one, restarted).
      return { decision: { kind: 'requeue' }, error, handlerCalls };
    }
  }
}

async function mayWait(
  hook: ((wait: { delayMs: number; retry: number }) => boolean | Promise<boolean>) | undefined,
  decision: { delayMs: number; retry: number },
): Promise<boolean> {
  if (!hook) return true;
  try {
    return await hook({ delayMs: decision.delayMs, retry: decision.retry });
  } catch {
    return false;
  }
}
