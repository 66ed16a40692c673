import { namesOf } from './classify';
import type { DeadLetterReason } from './decide';

/** Error text kept with a dead letter; the rest is cut so one message cannot bloat headers. */
export const MAX_ERROR_MESSAGE_LENGTH = 1_000;

/** Header (or application property) names, the same on every broker. */
export const HEADERS = {
  attempt: 'retry-attempt',
  firstFailureAt: 'retry-first-failure-at',
  reason: 'retry-dead-letter-reason',
  because: 'retry-dead-letter-because',
  errorName: 'retry-error-name',
  errorMessage: 'retry-error-message',
  source: 'retry-source',
  deadLetteredAt: 'retry-dead-lettered-at',
  attemptInvalid: 'retry-attempt-invalid',
  /** On a retry copy: the epoch milliseconds before which it must not be handled. */
  notBefore: 'retry-not-before',
} as const;

export interface DeadLetterInfo {
  reason: DeadLetterReason;
  because: string;
  errorName: string;
  errorMessage: string;
  attempt: number;
  /** The queue, topic or entity the message failed on. */
  source: string;
  /** Left out when the runtime cannot know it (quorum-delayed-retry after attempt 1). */
  firstFailureAt?: number;
  deadLetteredAt: number;
  attemptInvalid?: string;
}

export function describeError(error: unknown): { name: string; message: string } {
  if (error instanceof Error || (error !== null && typeof error === 'object' && 'message' in error)) {
    const names = namesOf(error as { name?: unknown; constructor?: { name?: unknown } });
    // A subclass that never set `name` still says "Error"; its class name is more useful.
    const name = names.find((each) => each !== 'Error') ?? names[0] ?? 'Error';
    return {
      name,
      message: String((error as { message: unknown }).message).slice(0, MAX_ERROR_MESSAGE_LENGTH),
    };
  }
  return { name: typeof error, message: String(error).slice(0, MAX_ERROR_MESSAGE_LENGTH) };
}

/** The metadata as string-valued headers. */
export function deadLetterHeaders(info: DeadLetterInfo): Record<string, string | number> {
  return {
    [HEADERS.reason]: info.reason,
    [HEADERS.because]: info.because,
    [HEADERS.errorName]: info.errorName,
    [HEADERS.errorMessage]: info.errorMessage,
    [HEADERS.attempt]: info.attempt,
    [HEADERS.source]: info.source,
    ...(info.firstFailureAt === undefined ? {} : { [HEADERS.firstFailureAt]: info.firstFailureAt }),
    [HEADERS.deadLetteredAt]: info.deadLetteredAt,
    ...(info.attemptInvalid === undefined ? {} : { [HEADERS.attemptInvalid]: info.attemptInvalid }),
  };
}
