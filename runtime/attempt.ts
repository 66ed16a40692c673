/**
 * The attempt travels in our own header (`retry-attempt`), never in `x-death` or a broker's
 * delivery count, which restart on a republished or scheduled copy.
 *
 * A malformed value has one defined outcome: the delivery counts as attempt 1 and the raw value
 * is kept for the dead-letter metadata. The message is processed, so a good message with a bad
 * header is not lost; it cannot loop, because every copy the runtime sends carries a valid
 * attempt again, and a crash loop still ends at the broker's delivery limit.
 */

/** Above this, a number is not an attempt count but damage (and could overflow arithmetic). */
export const MAX_ATTEMPT_VALUE = 1_000_000;

export interface AttemptReading {
  attempt: number;
  /** The raw header when it could not be read as an attempt. */
  invalid?: string;
}

function decode(raw: unknown): string | number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'number') return raw;
  if (typeof raw === 'bigint') return Number(raw);
  if (typeof raw === 'string') return raw;
  if (raw instanceof Uint8Array) return Buffer.from(raw).toString('utf8');
  try {
    return JSON.stringify(raw) ?? String(raw);
  } catch {
    // BigInt inside, or a cycle: still a value to report, never a crash.
    return Object.prototype.toString.call(raw);
  }
}

export function readAttempt(raw: unknown): AttemptReading {
  const value = decode(raw);
  if (value === undefined) return { attempt: 1 };
  const text = String(value).trim();
  const number = typeof value === 'number' ? value : /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isInteger(number) && number >= 1 && number <= MAX_ATTEMPT_VALUE) return { attempt: number };
  return { attempt: 1, invalid: text.slice(0, 100) };
}

/**
 * readAttempt for a copy that may carry an earlier malformed value in `retry-attempt-invalid`
 * (the runtime writes it on every copy it sends after reading one), so the dead letter still
 * says what the value was after any number of retries.
 */
export function readAttemptCarried(raw: unknown, carriedInvalid: unknown): AttemptReading {
  const reading = readAttempt(raw);
  const carried = decode(carriedInvalid);
  if (reading.invalid !== undefined || carried === undefined) return reading;
  return { attempt: reading.attempt, invalid: String(carried).slice(0, 100) };
}
