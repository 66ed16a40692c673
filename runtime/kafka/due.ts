import type { RangeMs } from '../../policy/plan/types';

export interface DueReading {
  /** Epoch milliseconds before which the record must not be handled. */
  dueAt: number;
  /** The raw `retry-not-before` when it could not be read. */
  invalid?: string;
  /** True when the header asked for later than its level allows and was cut back. */
  clamped?: boolean;
}

/**
 * When a record in a retry topic is due. The copy's `retry-not-before` says it (now + the drawn
 * wait, set by whoever produced the copy), bounded by what its level allows: never later than
 * the record's own timestamp + the level's longest wait, so a producer clock far ahead or a
 * damaged value cannot hold a partition for days.
 *
 * A missing or malformed value has one defined outcome: the record is due one level-minimum
 * wait after its timestamp. It still waits, it never stalls, and every copy the runtime produces
 * carries a valid value again.
 */
export function dueAt(notBefore: string | undefined, timestamp: string, wait: RangeMs): DueReading {
  const produced = Number(timestamp);
  const producedKnown = Number.isSafeInteger(produced) && produced > 0;
  const text = notBefore?.trim();
  const value = text !== undefined && /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value <= 0) {
    const fallback = producedKnown ? produced + wait.min : 0;
    return notBefore === undefined
      ? { dueAt: fallback }
      : { dueAt: fallback, invalid: notBefore.slice(0, 100) };
  }
  if (producedKnown && value > produced + wait.max) return { dueAt: produced + wait.max, clamped: true };
  return { dueAt: value };
}
