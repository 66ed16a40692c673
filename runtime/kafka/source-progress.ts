/**
 * Where a source partition stands when records of busy keys are queued in memory (park-key):
 * the main group's commit cannot pass a queued record, but the records after it go on. So the
 * commit says two things: its offset, the oldest record not done, and in its metadata which
 * records at or after that offset are done, so a new owner (after a rebalance or a crash) skips
 * them and reads only the queued ones again. Pure data, no I/O.
 *
 * The metadata is `rt1:<span>:<gaps>` in base 36: `span` = high − offset (every record below
 * `high` was read), `gaps` = the distances between the offsets still pending, the commit's
 * own offset first and left out. Kafka keeps at most `offset.metadata.max.bytes` (4096 by
 * default, Kafka 4.4.0) per partition; `fits` keeps the text under MAX_MARK_CHARS.
 */

export const MARK_PREFIX = 'rt1';
/** Leaves room under Kafka's default 4096-byte limit for the prefix and the span. */
export const MAX_MARK_CHARS = 3_500;

export interface SourceMark {
  /** The offset to commit: the oldest pending record, or `high` when none is pending. */
  offset: bigint;
  metadata: string;
}

export class SourceProgress {
  /** Every offset below it was read: done, or in `pending`. */
  private high: bigint;
  private readonly pending = new Set<bigint>();

  constructor(committed: bigint, metadata?: string | null) {
    this.high = committed;
    const parsed = parseMark(committed, metadata);
    if (parsed) {
      this.high = parsed.high;
      for (const offset of parsed.pending) this.pending.add(offset);
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

function encode(pending: Set<bigint>, high: bigint): SourceMark {
  const sorted = [...pending].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const offset = sorted[0] ?? high;
  const gaps: string[] = [];
  for (let i = 1; i < sorted.length; i++)
    gaps.push(((sorted[i] as bigint) - (sorted[i - 1] as bigint)).toString(36));
  return { offset, metadata: `${MARK_PREFIX}:${(high - offset).toString(36)}:${gaps.join('.')}` };
}

/**
 * Reads a mark this runtime wrote. Anything else (no metadata, another tool's, a damaged one)
 * means nothing is known past the commit: every record from there is read and handled again
 * (a duplicate, never a loss).
 */
export function parseMark(
  committed: bigint,
  metadata: string | null | undefined,
): { high: bigint; pending: bigint[] } | undefined {
  const match = /^rt1:([0-9a-z]{1,10}):((?:[0-9a-z]{1,10})(?:\.[0-9a-z]{1,10})*)?$/.exec(metadata ?? '');
  if (!match) return undefined;
  const high = committed + BigInt(Number.parseInt(match[1] as string, 36));
  if (high === committed) return { high, pending: [] };
  const pending = [committed];
  for (const gap of (match[2] ?? '').split('.').filter(Boolean)) {
    const step = BigInt(Number.parseInt(gap, 36));
    if (step <= 0n) return undefined;
    pending.push((pending[pending.length - 1] as bigint) + step);
  }
  if ((pending[pending.length - 1] as bigint) >= high) return undefined;
  return { high, pending };
}
