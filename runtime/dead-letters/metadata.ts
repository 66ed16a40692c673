import { readAttempt } from '../attempt';
import { HEADERS } from '../dead-letter';
import type { DeadLetterReasonGroup } from './types';

/**
 * Reads the dead-letter metadata the runtime writes (runtime/dead-letter.ts), whatever the broker:
 * `get` returns a header or application property as the client handed it over (a number, a
 * string, a Buffer, a Date). Anything missing or unreadable is left out, never guessed.
 */

export interface DeadLetterMetadata {
  reason?: 'permanent' | 'exhausted';
  because?: string;
  errorName?: string;
  errorMessage?: string;
  attempt?: number;
  attemptInvalid?: string;
  source?: string;
  firstFailureAt?: number;
  deadLetteredAt?: number;
  replays: number;
}

export const REPLAY_HEADERS = {
  /** Epoch ms when the copy was replayed from the dead letter. */
  replayedAt: 'retry-replayed-at',
  /** How many times this message has been replayed, this time included. */
  replayCount: 'retry-replay-count',
} as const;

/** Header text: strings, numbers and bytes as text; anything else is not text. */
export function asText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' || typeof raw === 'bigint') return String(raw);
  if (raw instanceof Uint8Array) return Buffer.from(raw).toString('utf8');
  return undefined;
}

/** Epoch milliseconds from a number, a digit string, bytes or a Date; undefined otherwise. */
export function asEpochMs(raw: unknown): number | undefined {
  if (raw instanceof Date) return Number.isFinite(raw.getTime()) ? raw.getTime() : undefined;
  const text = asText(raw)?.trim();
  if (text === undefined || !/^\d{1,16}$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

export function readDeadLetterMetadata(get: (name: string) => unknown): DeadLetterMetadata {
  const text = (name: string) => {
    const value = asText(get(name));
    return value === undefined || value === '' ? undefined : value;
  };
  const reason = text(HEADERS.reason);
  const rawAttempt = get(HEADERS.attempt);
  const attempt = rawAttempt === undefined || rawAttempt === null ? undefined : readAttempt(rawAttempt);
  const replays = Number(text(REPLAY_HEADERS.replayCount));
  const out: DeadLetterMetadata = {
    replays: Number.isSafeInteger(replays) && replays > 0 ? replays : 0,
  };
  if (reason === 'permanent' || reason === 'exhausted') out.reason = reason;
  const fields = {
    because: text(HEADERS.because),
    errorName: text(HEADERS.errorName),
    errorMessage: text(HEADERS.errorMessage),
    source: text(HEADERS.source),
    attemptInvalid: text(HEADERS.attemptInvalid) ?? attempt?.invalid,
    firstFailureAt: asEpochMs(get(HEADERS.firstFailureAt)),
    deadLetteredAt: asEpochMs(get(HEADERS.deadLetteredAt)),
    attempt: attempt && attempt.invalid === undefined ? attempt.attempt : undefined,
  };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined) Object.assign(out, { [key]: value });
  }
  return out;
}

/** The group a dead letter counts under: ours when the runtime wrote a reason, else the broker's. */
export function reasonGroup(
  metadata: DeadLetterMetadata,
  brokerReason: string | undefined,
): DeadLetterReasonGroup {
  if (metadata.reason) return metadata.reason;
  return brokerReason ? 'broker-rejected' : 'unknown';
}

/** Our dead-letter metadata, which a replayed copy leaves behind. */
const DEAD_LETTER_ONLY: readonly string[] = [
  HEADERS.reason,
  HEADERS.because,
  HEADERS.errorName,
  HEADERS.errorMessage,
  HEADERS.source,
  HEADERS.deadLetteredAt,
  HEADERS.attemptInvalid,
];

/**
 * The headers of a replayed copy: the dead-letter metadata goes, the attempt count restarts
 * (`retry-attempt` and `retry-first-failure-at` go) unless `keepAttempts`, and the copy says it was
 * replayed, when, and how many times so far. Every other header stays as the producer set it.
 */
export function replayedHeaders(
  headers: Record<string, unknown>,
  input: { now: number; keepAttempts: boolean; replays: number },
): Record<string, unknown> {
  const dropped = new Set(
    input.keepAttempts ? DEAD_LETTER_ONLY : [...DEAD_LETTER_ONLY, HEADERS.attempt, HEADERS.firstFailureAt],
  );
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) if (!dropped.has(name)) out[name] = value;
  out[REPLAY_HEADERS.replayedAt] = input.now;
  out[REPLAY_HEADERS.replayCount] = input.replays + 1;
  return out;
}
