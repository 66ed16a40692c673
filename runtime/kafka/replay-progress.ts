import { DeadLetterError } from '../dead-letters/errors';

/**
 * How far one partition of a Kafka dead-letter topic has been replayed or purged. Kafka cannot
 * delete single records, so progress is the replay group's committed offset, plus, in the commit's
 * metadata string, the records above it already done (a filtered replay leaves gaps).
 *
 * Metadata: `{"v":1,"r":<replayed>,"p":<purged>,"d":"<done above the offset>"}`. The done set is
 * written as ranges (`r1-4,9`, base 36, relative to the offset) or as a bitmap (`b<base64>`),
 * whichever is shorter. The broker keeps at most `offset.metadata.max.bytes` (4096 by default):
 * progress that no longer fits stops the command with `progress-full` before the copy is sent.
 */

export interface PartitionProgress {
  /** Every offset below this is done: the group's committed offset. */
  committed: number;
  /** Offsets at or above `committed` that are done too. */
  done: Set<number>;
  replayed: number;
  purged: number;
}

/** Below the broker's default offset.metadata.max.bytes (4096), with room for the JSON around it. */
export const MAX_PROGRESS_METADATA = 3_900;

export function emptyProgress(committed = 0): PartitionProgress {
  return { committed, done: new Set(), replayed: 0, purged: 0 };
}

function parseDone(text: string, committed: number): Set<number> {
  const done = new Set<number>();
  if (text.startsWith('r')) {
    for (const part of text.slice(1).split(',').filter(Boolean)) {
      const [from, to] = part.split('-').map((each) => Number.parseInt(each, 36));
      if (from === undefined || !Number.isSafeInteger(from)) continue;
      const last = to !== undefined && Number.isSafeInteger(to) ? to : from;
      for (let relative = from; relative <= last; relative++) done.add(committed + relative);
    }
  } else if (text.startsWith('b')) {
    const bits = Buffer.from(text.slice(1), 'base64');
    for (let index = 0; index < bits.length * 8; index++) {
      if (((bits[index >> 3] ?? 0) >> (index & 7)) & 1) done.add(committed + index);
    }
  }
  return done;
}

/** The group's committed offset and metadata; anything unreadable counts as no progress above it. */
export function readProgress(
  offset: string | undefined,
  metadata: string | null | undefined,
): PartitionProgress {
  const committed = offset !== undefined && /^\d+$/.test(offset) ? Number(offset) : 0;
  const progress = emptyProgress(committed);
  if (!metadata) return progress;
  try {
    const parsed = JSON.parse(metadata) as { v?: unknown; r?: unknown; p?: unknown; d?: unknown };
    if (parsed.v !== 1) return progress;
    if (typeof parsed.r === 'number' && parsed.r >= 0) progress.replayed = parsed.r;
    if (typeof parsed.p === 'number' && parsed.p >= 0) progress.purged = parsed.p;
    if (typeof parsed.d === 'string') progress.done = parseDone(parsed.d, committed);
  } catch {
    // Metadata someone else wrote: the committed offset alone still holds.
  }
  return progress;
}

export function isDone(progress: PartitionProgress, offset: number): boolean {
  return offset < progress.committed || progress.done.has(offset);
}

function encodeRanges(relatives: number[]): string {
  const parts: string[] = [];
  for (let index = 0; index < relatives.length; ) {
    const start = relatives[index] as number;
    let end = start;
    while (relatives[index + 1] === end + 1) {
      end++;
      index++;
    }
    index++;
    parts.push(start === end ? start.toString(36) : `${start.toString(36)}-${end.toString(36)}`);
  }
  return `r${parts.join(',')}`;
}

function encodeBitmap(relatives: number[]): string {
  const last = relatives[relatives.length - 1] ?? 0;
  const bits = Buffer.alloc((last >> 3) + 1);
  for (const relative of relatives) bits[relative >> 3] = (bits[relative >> 3] ?? 0) | (1 << (relative & 7));
  return `b${bits.toString('base64')}`;
}

export function encodeProgress(progress: PartitionProgress): string {
  const relatives = [...progress.done].map((offset) => offset - progress.committed).sort((a, b) => a - b);
  const ranges = encodeRanges(relatives);
  const done =
    relatives.length === 0
      ? ''
      : ranges.length <= 64
        ? ranges
        : [ranges, encodeBitmap(relatives)].sort((a, b) => a.length - b.length)[0];
  return JSON.stringify({ v: 1, r: progress.replayed, p: progress.purged, d: done });
}

/**
 * Progress with one more offset done: the committed offset moves past every done offset in a row.
 * Throws `progress-full` when the result would not fit in the commit's metadata.
 */
export function withDone(
  progress: PartitionProgress,
  offset: number,
  kind: 'replayed' | 'purged',
  where: string,
): { progress: PartitionProgress; metadata: string } {
  const done = new Set(progress.done);
  done.add(offset);
  let committed = progress.committed;
  while (done.delete(committed)) committed++;
  const next: PartitionProgress = {
    committed,
    done,
    replayed: progress.replayed + (kind === 'replayed' ? 1 : 0),
    purged: progress.purged + (kind === 'purged' ? 1 : 0),
  };
  const metadata = encodeProgress(next);
  if (metadata.length > MAX_PROGRESS_METADATA) {
    throw new DeadLetterError(
      'progress-full',
      `${where}: the records done above offset ${committed} no longer fit in the replay group's offset metadata; replay or purge the older pending records first (a filter such as --until), then go on`,
    );
  }
  return { progress: next, metadata };
}
