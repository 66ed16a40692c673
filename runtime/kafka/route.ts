import { describeError } from '../dead-letter';
import type { FinalDecision } from '../run-handler';
import type { Delivery, Reading, Runtime } from './delivery';
import { type CopyHeaders, deadLetterCopyHeaders, firstFailureAt, retryCopyHeaders } from './headers';

/**
 * Where a retry or dead-letter decision sends the record: the copy, built apart from its send
 * (send-copies.ts) and its commit (batch-engine.ts).
 */

/** The copy a decision asks for: where it goes, its headers, and (retry copies) when it is due. */
export interface Copy {
  destination: string;
  headers: CopyHeaders;
  notBefore?: number;
  /** A dead letter sent without the record's value, which the broker would not take. */
  dropValue?: true;
}

/**
 * The copy of the record a retry or dead-letter decision asks for. Pure, so a copy can be built
 * apart from its send, with the same headers (the application's kept, ours replaced) either way.
 */
export function copyOf(
  rt: Runtime,
  d: Delivery,
  reading: Reading,
  decision: Extract<FinalDecision, { kind: 'delayed' | 'dead-letter' }>,
  error: unknown,
): Copy {
  const now = rt.clock.now();
  if (decision.kind === 'delayed') {
    const notBefore = now + decision.delayMs;
    const headers = retryCopyHeaders({
      incoming: d.message.headers,
      origin: reading.origin,
      nextAttempt: decision.nextAttempt,
      notBefore,
      firstFailureAt: firstFailureAt(d.message.headers, now),
      ...(reading.invalid === undefined ? {} : { attemptInvalid: reading.invalid }),
    });
    return { destination: decision.destination, headers, notBefore };
  }
  const { name, message } = describeError(error);
  const headers = deadLetterCopyHeaders({
    incoming: d.message.headers,
    origin: reading.origin,
    info: {
      reason: decision.reason,
      because: decision.because,
      errorName: name,
      errorMessage: message,
      attempt: reading.attempt,
      source: d.topic,
      firstFailureAt: firstFailureAt(d.message.headers, now),
      deadLetteredAt: now,
      ...(reading.invalid === undefined ? {} : { attemptInvalid: reading.invalid }),
    },
  });
  return { destination: rt.rules.deadLetterTopic, headers };
}
