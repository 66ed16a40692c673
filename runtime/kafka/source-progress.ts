/**
 * Where a source partition stands when records of busy keys are queued in memory (park-key):
 * the main group's commit cannot pass a queued record, but the records after it go on. So the
 * commit says two things: its offset, the oldest record not done, and in its metadata which
 * records at or after that offset are done, so a new owner (after a rebalance or a crash) skips
 * them and reads only the queued ones again. Pure data, no I/O.
 *
 * The metadata is `rt2:<offset>:<span>:<gaps>` in base 36: `offset` = the offset it was
 * committed with, `span` = high − offset (every record below `high` was read), `gaps` = the
 * distances between the offsets still pending, the commit's own offset first and left out.
 * Kafka keeps at most `offset.metadata.max.bytes` (4096 by default, Kafka 4.4.0) per partition;
 * `fits` keeps the text under MAX_MARK_CHARS.
 *
 * The mark names its own offset because a commit can reach the group with metadata written for
 * another offset: MirrorMaker 2 copies a group's metadata unchanged next to the offset it
 * translated into the target cluster's log, and any tool that rewrites the offset may keep it.
 * Read against the wrong offset, the gaps would call queued records done: a loss.
 */

export const MARK_PREFIX = 'rt2';
/** Leaves room under Kafka's default 4096-byte limit for the prefix, the offset and the span. */
export const MAX_MARK_CHARS = 3_500;

export interface SourceMark {
  /** The offset to commit: the oldest pending record, or `high` when none is pending. */
  offset: bigint;
  metadata: string;
}

/** Why a commit's metadata was not used: every record from the commit is read and handled again. */
export type IgnoredMarkReason =
  /** Not this runtime's: another consumer's, a tool's, or an earlier format. */
  | 'not-a-mark'
  /** This runtime's, written for another offset (a mirrored or rewritten commit). */
  | 'other-offset'
  /** This runtime's prefix, but unreadable. */
  | 'damaged'
  /** It says records past the end of the log are done: it belongs to another log. */
  | 'past-log-end';

export type MarkReading =
  /** No metadata: nothing is known past the commit (a reset, a plain consumer, a first commit). */
  | { kind: 'none' }
  | { kind: 'mark'; high: bigint; pending: bigint[] }
  | { kind: 'ignored'; reason: IgnoredMarkReason };

export class SourceProgress {
  /** Every offset below it was read: done, or in `pending`. */
  private high: bigint;
  private readonly pending = new Set<bigint>();

  /** `reading` is what readMark made of the commit's metadata; none when there was no commit. */
  constructor(committed: bigint, reading: MarkReading = { kind: 'none' }) {
    this.high = committed;
    if (reading.kind === 'mark') {
      this.high = reading.high;
      for (const offset of reading.pending) this.pending.add(offset);
    }
  }

  /** Done already (skip it when it is read again): below `high` and not pending. */
  isDone(offset: bigint): boolean {
    return offset < this.high && !this.pending.has(offset);
  }

  isPending(offset: bigint): boolean {
    return this.pending.has(offset);
  }

  /** The record is queued: the commit must not pass it. */
  hold(offset: bigint): void {
    this.pending.add(offset);
    if (offset >= this.high) this.high = offset + 1n;
  }

  /** The record's outcome is carried out. An offset skipped by the log (a gap) counts as read. */
  finish(offset: bigint): void {
    this.pending.delete(offset);
    if (offset >= this.high) this.high = offset + 1n;
  }

  /** Whether a record before `offset` is still pending. */
  pendingBelow(offset: bigint): boolean {
    for (const pending of this.pending) if (pending < offset) return true;
    return false;
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Whether one more pending offset would still fit the commit metadata. */
  fits(offset: bigint): boolean {
    const trial = new Set(this.pending).add(offset);
    return encode(trial, offset >= this.high ? offset + 1n : this.high).metadata.length <= MAX_MARK_CHARS;
  }

  mark(): SourceMark {
    return encode(this.pending, this.high);
  }
}

const b36 = (value: bigint) => value.toString(36);

function encode(pending: Set<bigint>, high: bigint): SourceMark {
  const sorted = [...pending].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const offset = sorted[0] ?? high;
  const gaps: string[] = [];
  for (let i = 1; i < sorted.length; i++) gaps.push(b36((sorted[i] as bigint) - (sorted[i - 1] as bigint)));
  return { offset, metadata: `${MARK_PREFIX}:${b36(offset)}:${b36(high - offset)}:${gaps.join('.')}` };
}

const MARK = /^rt2:([0-9a-z]{1,13}):([0-9a-z]{1,10}):((?:[0-9a-z]{1,10})(?:\.[0-9a-z]{1,10})*)?$/;

/** Base 36 digits to a bigint, exactly (no detour through a double). */
function fromBase36(digits: string): bigint {
  let value = 0n;
  for (const digit of digits) value = value * 36n + BigInt(Number.parseInt(digit, 36));
  return value;
}

/**
 * What a commit's metadata says about the records past `committed`. Only a mark this runtime
 * wrote for that very offset counts, and only if it stays within the log (`logEnd`, when
 * known: the partition's end read after the commit). Anything else is ignored: every record
 * from the commit is read and handled again (duplicates, never a loss).
 */
export function readMark(
  committed: bigint,
  metadata: string | null | undefined,
  logEnd?: bigint,
): MarkReading {
  if (!metadata) return { kind: 'none' };
  if (!metadata.startsWith(`${MARK_PREFIX}:`)) return { kind: 'ignored', reason: 'not-a-mark' };
  const match = MARK.exec(metadata);
  if (!match) return { kind: 'ignored', reason: 'damaged' };
  if (fromBase36(match[1] as string) !== committed) return { kind: 'ignored', reason: 'other-offset' };
  const high = committed + fromBase36(match[2] as string);
  const pending = high === committed ? [] : [committed];
  for (const gap of (match[3] ?? '').split('.').filter(Boolean)) {
    const step = fromBase36(gap);
    if (step <= 0n || high === committed) return { kind: 'ignored', reason: 'damaged' };
    pending.push((pending[pending.length - 1] as bigint) + step);
  }
  if (pending.length > 0 && (pending[pending.length - 1] as bigint) >= high)
    return { kind: 'ignored', reason: 'damaged' };
  if (logEnd !== undefined && high > logEnd) return { kind: 'ignored', reason: 'past-log-end' };
  return { kind: 'mark', high, pending };
}
