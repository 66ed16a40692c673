import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { RabbitMqPlan } from '../../policy/plan/types';
import type { AttemptReading } from '../attempt';
import type { Clock } from '../clock';
import { type DeadLetterInfo, deadLetterHeaders, describeError, HEADERS } from '../dead-letter';
import type { TargetRules } from '../decide';
import type { FinalDecision } from '../run-handler';
import { publishCopy } from './confirm';
import { copyProperties, firstFailureAt } from './copy';
import type { HeldPublishes } from './held';
import type { Settler } from './settle';

type Rules = TargetRules & RabbitMqPlan;

/** What carrying out a decision needs from its consumer. */
export interface RouteContext {
  channel: ConfirmChannel;
  rules: Rules;
  clock: Clock;
  held: HeldPublishes;
  settle: Settler;
  report: (error: unknown, message: ConsumeMessage) => void;
  afterCopyConfirmed: ((message: ConsumeMessage) => Promise<void> | void) | undefined;
}

/**
 * A delayed retry: in ttl-queues mode a copy to the level's wait queue through the retry
 * exchange; in delivery-time mode (4.4+) a copy back to the main queue with x-opt-delivery-time;
 * in quorum-delayed-retry mode (4.3+) a reject, and the broker holds the message. The original is
 * acked only after the broker confirmed and routed the copy.
 */
export async function retry(
  context: RouteContext,
  message: ConsumeMessage,
  decision: Extract<FinalDecision, { kind: 'delayed' }>,
  reading: AttemptReading,
): Promise<void> {
  const { rules, settle } = context;
  if (rules.mode === 'quorum-delayed-retry') {
    // A reject counts as a failed delivery on 4.3, and the queue's delayed-retry settings hold the
    // message before it is delivered again. Nothing is republished.
    settle.reject(message, true);
    return;
  }
  const now = context.clock.now();
  const headers: Record<string, unknown> = {
    [HEADERS.attempt]: decision.nextAttempt,
    [HEADERS.firstFailureAt]: firstFailureAt(message, now),
  };
  // The copy's attempt is valid again; a malformed value read on the way goes on for the dead letter.
  if (reading.invalid !== undefined) headers[HEADERS.attemptInvalid] = reading.invalid;
  const deliveryTime = rules.mode === 'delivery-time';
  const level = rules.levels[decision.level - 1];
  // The wait the broker applies: the delivery time, or the wait queue's TTL. The consumer holds a
  // copy the broker lets out before it (due.ts).
  const waitMs = deliveryTime ? decision.delayMs : (level?.waitMs.min ?? decision.delayMs);
  headers[HEADERS.notBefore] = now + waitMs;
  if (deliveryTime) headers['x-opt-delivery-time'] = now + decision.delayMs;
  const routingKey = deliveryTime ? rules.mainQueue : decision.destination;
  const outcome = await context.held.publish(
    routingKey,
    level?.waitMs.max ?? Number.POSITIVE_INFINITY,
    // Each try gets fresh properties: publishCopy adds its own id to them.
    () =>
      publishCopy(
        context.channel,
        rules.retryExchange,
        routingKey,
        message.content,
        copyProperties(message, headers),
      ),
    (refused) => context.report(refused, message),
  );
  if (outcome === 'stopped') {
    settle.nack(message, true);
    return;
  }
  if (context.afterCopyConfirmed) await context.afterCopyConfirmed(message);
  settle.ack(message);
}

/**
 * A permanent failure or the last attempt: a copy to the dead-letter exchange with the reason
 * headers, then the ack. A copy the broker refuses (a nack while a queue leader moves, a DLQ at
 * its max-length with reject-publish) is held and tried again, as a retry copy is, so the dead
 * letter always arrives with its reason: the original stays unacked meanwhile. Stopping first
 * puts the original back in its queue.
 */
export async function deadLetter(
  context: RouteContext,
  message: ConsumeMessage,
  decision: Extract<FinalDecision, { kind: 'dead-letter' }>,
  error: unknown,
  reading: AttemptReading,
): Promise<void> {
  const { rules, settle } = context;
  const now = context.clock.now();
  const described = describeError(error);
  const info: DeadLetterInfo = {
    reason: decision.reason,
    because: decision.because,
    errorName: described.name,
    errorMessage: described.message,
    attempt: reading.attempt,
    source: rules.mainQueue,
    // quorum-delayed-retry: the broker redelivers the same message and keeps no time of its first
    // failure, so after attempt 1 the time is unknown and the header is left out.
    ...(rules.mode === 'quorum-delayed-retry' && reading.attempt > 1
      ? {}
      : { firstFailureAt: firstFailureAt(message, now) }),
    deadLetteredAt: now,
    ...(reading.invalid === undefined ? {} : { attemptInvalid: reading.invalid }),
  };
  const outcome = await context.held.publish(
    // Its own line: a full DLQ holds back dead letters only, never a level's retry copies.
    `dead-letter ${rules.deadLetterExchange} ${rules.mainQueue}`,
    // No level wait bounds the tries: the held back-off's own longest wait does.
    Number.POSITIVE_INFINITY,
    () =>
      publishCopy(
        context.channel,
        rules.deadLetterExchange,
        rules.mainQueue,
        message.content,
        withoutNotBefore(copyProperties(message, deadLetterHeaders(info))),
      ),
    (refused) => context.report(refused, message),
  );
  if (outcome === 'stopped') {
    settle.nack(message, true);
    return;
  }
  settle.ack(message);
}

/** A dead letter waits for nothing: the last retry copy's due time is not carried on. */
function withoutNotBefore<T extends { headers: Record<string, unknown> }>(properties: T): T {
  delete properties.headers[HEADERS.notBefore];
  return properties;
}
