import type { ConsumeMessage } from 'amqplib';
import type { RabbitMode } from '../../policy/types';
import { type AttemptReading, readAttempt, readAttemptCarried } from '../attempt';
import { HEADERS } from '../dead-letter';

/**
 * The attempt of a delivery. Copies carry our `retry-attempt` header. In quorum-delayed-retry
 * mode there is no copy: the broker redelivers the same message, and its `x-delivery-count`
 * (failed deliveries so far; a reject counts on 4.3) is the number of earlier attempts.
 * A malformed value read earlier comes back from `retry-attempt-invalid`.
 */
export function attemptOf(message: ConsumeMessage, mode: RabbitMode): AttemptReading {
  const headers = message.properties.headers ?? {};
  if (mode === 'quorum-delayed-retry') {
    const count = headers['x-delivery-count'];
    // Only the broker's count is ours to read. A publisher's own x-delivery-count passes through
    // until the broker first counts a failure (checked on 3.10.8, 4.0.5 and 4.3.6), so on a first
    // delivery, or when it exceeds the broker's x-acquired-count (4.3), it is not the broker's.
    const acquired = headers['x-acquired-count'];
    if (count === undefined || !message.fields.redelivered) return { attempt: 1 };
    if (typeof count === 'number' && typeof acquired === 'number' && count > acquired) return { attempt: 1 };
    const reading = readAttempt(typeof count === 'number' ? count + 1 : count);
    return typeof count === 'number' || reading.invalid ? reading : { attempt: reading.attempt + 1 };
  }
  return readAttemptCarried(headers[HEADERS.attempt], headers[HEADERS.attemptInvalid]);
}
