import type { DeadLetterOptions } from '@azure/service-bus';
import { type DeadLetterInfo, deadLetterHeaders } from '../dead-letter';

/**
 * The longest deadLetterReason or deadLetterErrorDescription, in UTF-16 code units: @azure/core-amqp
 * 4.4.2 `Constants.maxDeadLetterReasonLength`. The JS SDK (7.9.5) sends longer text unchecked;
 * the .NET SDK refuses it, and the values travel in the message header, which the broker caps
 * (64 KB on Standard). A test keeps this equal to the SDK's constant.
 */
export const MAX_DEAD_LETTER_TEXT = 4_096;

/** Our own properties set on the dead letter stay small, so they never crowd the header. */
export const MAX_PROPERTY_TEXT = 1_000;

const ELLIPSIS = '…';

/** Cut to at most `max` UTF-16 code units, never through a surrogate pair, marking the cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - ELLIPSIS.length;
  const last = text.charCodeAt(end - 1);
  // A high surrogate here would be left without its low half: an invalid string on the wire.
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + ELLIPSIS;
}

/** What deadLetterMessage takes: the SDK's DeadLetterOptions plus properties set on the dead letter. */
export type ServiceBusDeadLetter = DeadLetterOptions & {
  [key: string]: number | boolean | string | Date | null;
};

/**
 * The reason is our stable code (`permanent` or `exhausted`, the same as the
 * `retry-dead-letter-reason` property on every broker), so it never collides with the broker's
 * own reasons (`MaxDeliveryCountExceeded`, `TTLExpiredException`). The description starts with
 * the attempt, so a cut only ever shortens the error text.
 */
export function deadLetterOptions(info: DeadLetterInfo, maxAttempts: number): ServiceBusDeadLetter {
  const properties: ServiceBusDeadLetter = {
    deadLetterReason: truncate(info.reason, MAX_DEAD_LETTER_TEXT),
    deadLetterErrorDescription: truncate(
      `attempt ${info.attempt} of ${maxAttempts}: ${info.errorName}: ${info.errorMessage}`,
      MAX_DEAD_LETTER_TEXT,
    ),
  };
  for (const [key, value] of Object.entries(deadLetterHeaders(info))) {
    properties[key] = typeof value === 'string' ? truncate(value, MAX_PROPERTY_TEXT) : value;
  }
  return properties;
}
