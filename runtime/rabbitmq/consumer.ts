import { defaultMaxListeners, setMaxListeners } from 'node:events';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { RetryPlan } from '../../policy/plan/types';
import { type Clock, mathRandom, type Random, systemClock } from '../clock';
import { RetryTopologyError } from '../errors';
import { createMetrics, type MeterLike } from '../metrics';
import { targetRules } from '../rules';
import { runHandler } from '../run-handler';
import { stopTimeoutOf, withinDeadline } from '../stop-deadline';
import { stoppableClock } from '../stoppable-clock';
import { attemptOf } from './attempt';
import { assertBrokerVersion } from './broker-version';
import { onChannelClose } from './channel-close';
import { timeLeft } from './due';
import { HeldPublishes, type RefusedPublishBackoff } from './held';
import { deadLetter, type RouteContext, retry } from './route';
import { settlerFor } from './settle';

export interface RabbitHandlerContext {
  /** This delivery's attempt, from 1. */
  attempt: number;
  maxAttempts: number;
  /** The message's messageId property: the natural idempotency key when the producer sets it. */
  messageId: string | undefined;
  /** Aborted when the consumer stops. */
  signal: AbortSignal;
}

export type RabbitHandler = (message: ConsumeMessage, context: RabbitHandlerContext) => Promise<void>;

export interface RabbitConsumerOptions {
  /** Unacked messages at once; each runs independently, so one slow publish blocks no other. */
  prefetch?: number;
  clock?: Clock;
  random?: Random;
  meter?: MeterLike;
  /** Waits between tries to publish a copy the broker refused (a full wait queue); see HeldPublishes. */
  refusedPublishBackoff?: RefusedPublishBackoff;
  /** Told about failures the runtime handled but you may want to log (a refused publish, a closed channel). */
  onError?: (error: unknown, message: ConsumeMessage) => void;
  /**
   * Called when the broker cancels the consumer (its queue was deleted, or the node holding it
   * went away), with a RetryTopologyError of code `consumer-cancelled`. `closed` rejects with the
   * same error once the deliveries in flight have settled; re-consume or exit from either.
   */
  onCancel?: (error: RetryTopologyError) => void;
  /**
   * How long stop() waits for running handlers. Their stop signal aborts at once; a handler still
   * running when this passes is given back to its queue (nack with requeue, at the same attempt)
   * and stop() resolves. Whatever that handler does later is dropped. Default 10 s.
   */
  stopTimeoutMs?: number;
}

/**
 * Hooks for the package's own fault tests, taken by consumeWithHooks and not by the public entry
 * point.
 */
export interface RabbitTestHooks {
  /** Runs after a retry copy is confirmed and before the original is acked. */
  afterCopyConfirmed?: (message: ConsumeMessage) => Promise<void> | void;
}

export interface RabbitConsumer {
  consumerTag: string;
  /** Stops taking messages; in-flight ones finish or go back to the queue. */
  stop(): Promise<void>;
  /**
   * Settles when the consumer has ended: resolves after stop(); rejects with a RetryTopologyError
   * of code `consumer-cancelled` when the broker cancelled it, or `channel-closed` when its
   * channel closed first (the broker closed it, or the connection dropped). Nothing is consumed
   * after it settles. An unwatched rejection is never an unhandled rejection.
   */
  closed: Promise<void>;
}

const DEFAULTS = {
  prefetch: 10,

  /**
   * A full wait queue has room again within its TTL; a level's own wait caps these, so a short
   * level is tried often and a long one at most every 30 s.
   */
  refusedPublishBackoff: { initialMs: 1_000, maxMs: 30_000 },
};

/**
 * Consumes the plan's main queue with the policy's retry behaviour. The channel must be a
 * confirm channel: a copy counts as sent only once the broker confirms it, and only then is the
 * original acked (a crash in between gives a duplicate, never a loss).
 *
 * nack/requeue is never a retry here: it is used only for messages in flight when the consumer
 * stops. A refused copy (a wait queue at its max-length refuses with reject-publish) is kept
 * unacked and held in line behind the level's other refused copies (HeldPublishes): the head is
 * tried again after a jittered, growing wait no longer than a quarter of the level's own. While
 * that lasts the held messages keep their prefetch slots, so a consumer whose wait queues are full
 * slows down instead of spinning.
 *
 * A retry copy carries `retry-not-before`; one the broker lets out early is held, unacked, until
 * then (due.ts), so no handler runs before its delay.
 */
export async function consumeWithRetries(
  channel: ConfirmChannel,
  plan: RetryPlan,
  handler: RabbitHandler,
  options: RabbitConsumerOptions = {},
): Promise<RabbitConsumer> {
  return consumeWithHooks(channel, plan, handler, { ...options, afterCopyConfirmed: undefined });
}

/**
 * consumeWithRetries with the fault tests' hooks (RabbitTestHooks). Not exported by the entry
 * point: the tests and benchmarks import it from this file.
 */
export async function consumeWithHooks(
  channel: ConfirmChannel,
  plan: RetryPlan,
  handler: RabbitHandler,
  options: RabbitConsumerOptions & RabbitTestHooks = {},
): Promise<RabbitConsumer> {
  const rules = targetRules(plan, 'rabbitmq');
  assertBrokerVersion(channel, plan, rules);
  const random = options.random ?? mathRandom;
  const prefetch = options.prefetch ?? DEFAULTS.prefetch;
  const metrics = createMetrics({ policy: plan.policy, target: 'rabbitmq' }, options.meter);
  const stopping = new AbortController();
  const signal = stopping.signal;
  // Every in-flight handler may listen on the stop signal (fetch, a driver): that is up to one
  // per prefetch slot, not a leak, so Node's default warning at ten would be a false alarm.
  setMaxListeners(prefetch + defaultMaxListeners, signal);
  // The runtime's own waits (in-memory retries, held copies) share one listener.
  const clock = stoppableClock(options.clock ?? systemClock, signal);
  const settle = settlerFor(channel);
  const route: RouteContext = {
    channel,
    rules,
    clock,
    held: new HeldPublishes(
      clock,
      random,
      options.refusedPublishBackoff ?? DEFAULTS.refusedPublishBackoff,
      signal,
    ),
    settle,
    report: (error, message) => options.onError?.(error, message),
    afterCopyConfirmed: options.afterCopyConfirmed,
  };
  // Deliveries being handled, and who waits for them all to finish (stop, a cancel).
  const inFlight = new Set<ConsumeMessage>();
  let idle: (() => void) | undefined;
  const finished = (message: ConsumeMessage) => {
    if (inFlight.delete(message) && inFlight.size === 0) idle?.();
  };
  const stopTimeoutMs = stopTimeoutOf(options.stopTimeoutMs);

  const longestWaitMs = Math.max(0, ...rules.levels.map((level) => level.waitMs.max));

  async function handle(message: ConsumeMessage): Promise<void> {
    const holdMs = timeLeft(message, clock.now(), longestWaitMs);
    if (holdMs > 0) {
      // Node's timers may end a millisecond before the wall clock reaches their end, so the hold
      // sleeps again until it has: a held copy never runs before its due time.
      const until = clock.now() + holdMs;
      try {
        for (let left = holdMs; left > 0; left = until - clock.now()) await clock.sleep(left);
      } catch {
        // Stopping: the copy goes back to its queue, its due time with it.
        try {
          settle.nack(message, true);
        } catch (error) {
          route.report(error, message);
        }
        return;
      }
    }
    const reading = attemptOf(message, rules.mode);
    const run = await runHandler(rules, {
      attempt: reading.attempt,
      call: () =>
        handler(message, {
          attempt: reading.attempt,
          maxAttempts: rules.maxAttempts,
          messageId: message.properties.messageId,
          signal,
        }),
      clock,
      random,
      metrics,
      signal,
    });
    // Given back by the stop's deadline while the handler ran: nothing more is done with it.
    if (!inFlight.has(message)) return;
    const { decision } = run;
    try {
      switch (decision.kind) {
        case 'ack':
          settle.ack(message);
          metrics.attempt('success');
          return;
        case 'requeue':
          settle.nack(message, true);
          metrics.attempt('requeued');
          return;
        case 'delayed':
          await retry(route, message, decision, reading);
          metrics.attempt('retry');
          metrics.retryScheduled('delayed', decision.level);
          return;
        case 'dead-letter':
          await deadLetter(route, message, decision, run.error, reading);
          metrics.attempt('dead-letter');
          metrics.deadLettered(decision.reason);
          return;
      }
    } catch (error) {
      // The channel is gone (the broker restarted, the connection dropped): the broker requeues
      // every unacked message by itself, so there is nothing to undo here.
      route.report(error, message);
    }
  }

  // How the consumer ends: at most once, by stop(), the broker's cancel, or the channel closing.
  let ended = false;
  let endWith: (error?: RetryTopologyError) => void = () => {};
  const closed = new Promise<void>((resolve, reject) => {
    endWith = (error) => (error ? reject(error) : resolve());
  });
  closed.catch(() => {});
  async function end(error?: RetryTopologyError): Promise<void> {
    if (ended) return;
    ended = true;
    unwatch();
    stopping.abort(error ?? new RetryTopologyError('consumer-stopped', 'the consumer is stopping'));
    if (inFlight.size > 0) {
      await withinDeadline(new Promise<void>((resolve) => (idle = resolve)), stopTimeoutMs);
      // Still running at the deadline: back to the queue at the same attempt.
      for (const message of inFlight) {
        try {
          settle.giveBack(message);
        } catch (error) {
          route.report(error, message);
        }
      }
      inFlight.clear();
    }
    settle.flush();
    endWith(error);
  }
  const unwatch = onChannelClose(channel, () => {
    void end(new RetryTopologyError('channel-closed', `the channel consuming ${rules.mainQueue} closed`));
  });

  await channel.prefetch(prefetch);
  const { consumerTag } = await channel.consume(rules.mainQueue, (message) => {
    if (!message) {
      // basic.cancel from the broker: the queue was deleted, or its node went away.
      const error = new RetryTopologyError(
        'consumer-cancelled',
        `the broker cancelled the consumer of ${rules.mainQueue} (the queue was deleted, or its node is gone)`,
      );
      try {
        options.onCancel?.(error);
      } finally {
        void end(error);
      }
      return;
    }
    settle.track(message);
    inFlight.add(message);
    handle(message).then(
      () => finished(message),
      (error) => {
        route.report(error, message);
        finished(message);
      },
    );
  });

  return {
    consumerTag,
    closed,
    async stop() {
      if (!ended) await channel.cancel(consumerTag).catch(() => undefined);
      await end();
      await closed.catch(() => undefined);
    },
  };
}
