import { defaultMaxListeners, setMaxListeners } from 'node:events';
import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { RetryPlan } from '../../policy/plan/types';
import { type Clock, mathRandom, type Random, systemClock } from '../clock';
import { type DeadLetterInfo, deadLetterHeaders, describeError, HEADERS } from '../dead-letter';
import { RetryTopologyError } from '../errors';
import { createMetrics, type MeterLike } from '../metrics';
import { targetRules } from '../rules';
import { type FinalDecision, runHandler } from '../run-handler';
import { stoppableClock } from '../stoppable-clock';
import { attemptOf } from './attempt';
import { assertBrokerVersion } from './broker-version';
import { publishConfirmed } from './confirm';
import { copyProperties, firstFailureAt } from './copy';
import { HeldPublishes, type RefusedPublishBackoff } from './held';
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
  /** For fault tests: runs after a retry copy is confirmed and before the original is acked. */
  afterCopyConfirmed?: (message: ConsumeMessage) => Promise<void> | void;
}

export interface RabbitConsumer {
  consumerTag: string;
  /** Stops taking messages; in-flight ones finish or go back to the queue. */
  stop(): Promise<void>;
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
 * tried again after a jittered, growing wait no longer than the level's own. While that lasts the
 * held messages keep their prefetch slots, so a consumer whose wait queues are full slows down
 * instead of spinning.
 */
export async function consumeWithRetries(
  channel: ConfirmChannel,
  plan: RetryPlan,
  handler: RabbitHandler,
  options: RabbitConsumerOptions = {},
): Promise<RabbitConsumer> {
  const rules = targetRules(plan, 'rabbitmq');
  assertBrokerVersion(channel, plan, rules);
  const random = options.random ?? mathRandom;
  const prefetch = options.prefetch ?? DEFAULTS.prefetch;
  const metrics = createMetrics({ policy: plan.policy, target: 'rabbitmq' }, options.meter);
  const stopping = new AbortController();
  // Every in-flight handler may listen on the stop signal (fetch, a driver): that is up to one
  // per prefetch slot, not a leak, so Node's default warning at ten would be a false alarm.
  setMaxListeners(prefetch + defaultMaxListeners, stopping.signal);
  // The runtime's own waits (in-memory retries, held copies) share one listener.
  const clock = stoppableClock(options.clock ?? systemClock, stopping.signal);
  const held = new HeldPublishes(
    clock,
    random,
    options.refusedPublishBackoff ?? DEFAULTS.refusedPublishBackoff,
    stopping.signal,
  );
  const inFlight = new Set<Promise<void>>();
  const settle = settlerFor(channel);
  const report = (error: unknown, message: ConsumeMessage) => options.onError?.(error, message);

  async function retry(
    message: ConsumeMessage,
    decision: Extract<FinalDecision, { kind: 'delayed' }>,
    attemptInvalid: string | undefined,
  ): Promise<void> {
    if (rules.mode === 'quorum-delayed-retry') {
      // RabbitMQ 4.3+: a reject counts as a failed delivery, and the queue's delayed-retry
      // settings hold the message before it is delivered again. Nothing is republished.
      settle.reject(message, true);
      return;
    }
    const now = clock.now();
    const headers: Record<string, unknown> = {
      [HEADERS.attempt]: decision.nextAttempt,
      [HEADERS.firstFailureAt]: firstFailureAt(message, now),
    };
    // The copy's attempt is valid again; the malformed value goes on for the dead letter.
    if (attemptInvalid !== undefined) headers[HEADERS.attemptInvalid] = attemptInvalid;
    // delivery-time mode (4.4+): the copy goes back to the main queue and is delivered at this time.
    if (rules.mode === 'delivery-time') headers['x-opt-delivery-time'] = now + decision.delayMs;
    const properties = copyProperties(message, headers);
    const routingKey = rules.mode === 'delivery-time' ? rules.mainQueue : decision.destination;
    const outcome = await held.publish(
      routingKey,
      rules.levels[decision.level - 1]?.waitMs.max ?? Number.POSITIVE_INFINITY,
      () => publishConfirmed(channel, rules.retryExchange, routingKey, message.content, properties),
      (refused) => report(refused, message),
    );
    if (outcome === 'stopped') {
      settle.nack(message, true);
      return;
    }
    await options.afterCopyConfirmed?.(message);
    settle.ack(message);
  }

  async function deadLetter(
    message: ConsumeMessage,
    decision: Extract<FinalDecision, { kind: 'dead-letter' }>,
    error: unknown,
    attempt: number,
    attemptInvalid: string | undefined,
  ): Promise<void> {
    const now = clock.now();
    const info: DeadLetterInfo = {
      reason: decision.reason,
      because: decision.because,
      ...(() => {
        const { name, message: text } = describeError(error);
        return { errorName: name, errorMessage: text };
      })(),
      attempt,
      source: rules.mainQueue,
      // quorum-delayed-retry: the broker redelivers the same message and keeps no time of its
      // first failure, so after attempt 1 the time is unknown and the header is left out.
      ...(rules.mode === 'quorum-delayed-retry' && attempt > 1
        ? {}
        : { firstFailureAt: firstFailureAt(message, now) }),
      deadLetteredAt: now,
      ...(attemptInvalid === undefined ? {} : { attemptInvalid }),
    };
    try {
      await publishConfirmed(
        channel,
        rules.deadLetterExchange,
        rules.mainQueue,
        message.content,
        copyProperties(message, deadLetterHeaders(info)),
      );
      settle.ack(message);
    } catch (refused) {
      report(refused, message);
      // The broker's own dead-lettering still gets it to the DLQ (at-least-once, via the main
      // queue's DLX), without our reason headers but with x-death saying "rejected".
      settle.reject(message, false);
    }
  }

  async function handle(message: ConsumeMessage): Promise<void> {
    const reading = attemptOf(message, rules.mode);
    const run = await runHandler(rules, {
      attempt: reading.attempt,
      call: () =>
        handler(message, {
          attempt: reading.attempt,
          maxAttempts: rules.maxAttempts,
          messageId: message.properties.messageId,
          signal: stopping.signal,
        }),
      clock,
      random,
      metrics,
      signal: stopping.signal,
    });
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
          await retry(message, decision, reading.invalid);
          metrics.attempt('retry');
          metrics.retryScheduled('delayed', decision.level);
          return;
        case 'dead-letter':
          await deadLetter(message, decision, run.error, reading.attempt, reading.invalid);
          metrics.attempt('dead-letter');
          metrics.deadLettered(decision.reason);
          return;
      }
    } catch (error) {
      // The channel is gone (the broker restarted, the connection dropped): the broker requeues
      // every unacked message by itself, so there is nothing to undo here.
      report(error, message);
    }
  }

  await channel.prefetch(prefetch);
  const { consumerTag } = await channel.consume(rules.mainQueue, (message) => {
    // null: the broker cancelled the consumer (the queue was deleted).
    if (!message) return;
    settle.track(message);
    const work = handle(message).finally(() => inFlight.delete(work));
    inFlight.add(work);
  });

  return {
    consumerTag,
    async stop() {
      await channel.cancel(consumerTag).catch(() => undefined);
      stopping.abort(new RetryTopologyError('consumer-stopped', 'the consumer is stopping'));
      await Promise.allSettled([...inFlight]);
      settle.flush();
    },
  };
}
