import type { ServiceBusMessage, ServiceBusReceivedMessage } from '@azure/service-bus';
import { HEADERS } from '../dead-letter';

type Properties = NonNullable<ServiceBusMessage['applicationProperties']>;

/**
 * The copy scheduled for the next attempt. It keeps what the producer set and the handler may
 * read (body, ids, subject, content type, routing fields, application properties) and changes
 * only our attempt property (and `retry-attempt-invalid` after a malformed one); `retry-first-failure-at` is set on the first failure and carried
 * after that.
 *
 * Left out on purpose: everything the broker stamps (sequence number, lock, delivery count,
 * enqueued time), and `timeToLive`, so the copy takes the scheduled entity's default TTL, which
 * the plan sizes to cover the retry window (a producer's own shorter per-message TTL restarts).
 */
export function retryCopy(
  message: ServiceBusReceivedMessage,
  next: { attemptProperty: string; attempt: number; firstFailureAt: number; attemptInvalid?: string },
): ServiceBusMessage {
  const applicationProperties: Properties = {
    ...message.applicationProperties,
    [next.attemptProperty]: next.attempt,
    [HEADERS.firstFailureAt]: next.firstFailureAt,
  };
  // The attempt is valid again; a malformed one read on the way goes on for the dead letter.
  if (next.attemptInvalid !== undefined) applicationProperties[HEADERS.attemptInvalid] = next.attemptInvalid;
  const copy: ServiceBusMessage = { body: message.body, applicationProperties };
  // Only fields the original has: an explicit `undefined` would still be a key on the copy.
  const optional = [
    'messageId',
    'correlationId',
    'subject',
    'contentType',
    'to',
    'replyTo',
    'replyToSessionId',
    'sessionId',
    'partitionKey',
  ] as const;
  for (const key of optional) {
    const value = message[key];
    if (value !== undefined) Object.assign(copy, { [key]: value });
  }
  return copy;
}

/** `retry-first-failure-at` as epoch milliseconds, when the message carries a usable one. */
export function firstFailureOf(message: ServiceBusReceivedMessage): number | undefined {
  const raw = message.applicationProperties?.[HEADERS.firstFailureAt];
  const value =
    raw instanceof Date ? raw.getTime() : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}
