/**
 * What is in the retry chain, per source partition and key: the in-memory side of the chain
 * view (chain-view.ts feeds it). Pure data, no I/O.
 *
 * A record is in the chain while one of its copies sits in a retry topic at or after the retry
 * group's committed offset. Copies move level to level by produce-then-commit, so at any
 * instant every record in the chain has such a copy, and the chain's state is the broker's own:
 * nothing here has to survive a restart.
 */

export interface ChainEntry {
  /** The retry topic and partition the copy sits in (the partition is the source partition). */
  topic: string;
  partition: number;
  /** Its offset there; undefined for a copy this process produced that the reader has not read yet. */
  offset?: number;
  /** The record key (base64), null keys are never ordered. */
  keyId: string;
  /** The record's offset on the source topic: the key's sequence. Undefined when the header is missing. */
  sequence?: number;
  /** Its `retry-not-before`, when readable. */
  notBefore?: number;
  /** Its `retry-first-failure-at`, when readable: carried unchanged from copy to copy of a record. */
  firstFailureAt?: number;
  /** When the copy was produced (record timestamp, or the local ack time). */
  producedAt: number;
}

type Interval = [from: number, to: number];

const slot = (topic: string, partition: number) => `${topic}\u0000${partition}`;
const keySlot = (partition: number, keyId: string) => `${partition}\u0000${keyId}`;

export class ChainIndex {
  private readonly entries = new Map<string, Map<number, ChainEntry>>();
  private readonly byKey = new Map<string, Set<ChainEntry>>();
  private readonly coverage = new Map<string, Interval[]>();
  private readonly floors = new Map<string, number>();
  private local: Array<{ entry: ChainEntry; round: number }> = [];

  /** A copy the reader read. Copies below the known committed offset are already out of the chain. */
  add(entry: ChainEntry & { offset: number }): void {
    const where = slot(entry.topic, entry.partition);
    if (entry.offset < (this.floors.get(where) ?? 0)) return;
    const copies = this.entries.get(where) ?? new Map<number, ChainEntry>();
    this.entries.set(where, copies);
    if (copies.has(entry.offset)) return;
    copies.set(entry.offset, entry);
    this.keyed(entry.partition, entry.keyId).add(entry);
  }

  /** Marks one offset as read (every record, keyed or not, counts for coverage). */
  cover(topic: string, partition: number, offset: number): void {
    const where = slot(topic, partition);
    const intervals = this.coverage.get(where) ?? [];
    const last = intervals[intervals.length - 1];
    if (last && offset === last[1]) last[1] = offset + 1;
    else if (!intervals.some(([from, to]) => offset >= from && offset < to)) {
      intervals.push([offset, offset + 1]);
      intervals.sort((a, b) => a[0] - b[0]);
      this.coverage.set(where, merge(intervals));
      return;
    }
    this.coverage.set(where, intervals);
  }

  /** Whether every offset in [from, to) has been read; offsets below the floor are out anyway. */
  covered(topic: string, partition: number, from: number, to: number): boolean {
    const start = Math.max(from, this.floors.get(slot(topic, partition)) ?? 0);
    if (to <= start) return true;
    return (this.coverage.get(slot(topic, partition)) ?? []).some(([a, b]) => a <= start && b >= to);
  }

  /**
   * The retry group's committed offset (or the log start): everything below has left the chain.
   * It only rises: committed offsets only move forward, and a snapshot that read them before a
   * commit this process made (and applied at once) must not bring the removed copies back.
   */
  setFloor(topic: string, partition: number, floor: number): void {
    const where = slot(topic, partition);
    if (floor <= (this.floors.get(where) ?? 0)) return;
    this.floors.set(where, floor);
    const copies = this.entries.get(where);
    for (const [offset, entry] of copies ?? []) {
      if (offset >= floor) continue;
      copies?.delete(offset);
      this.byKey.get(keySlot(entry.partition, entry.keyId))?.delete(entry);
    }
    const intervals = this.coverage.get(where);
    if (intervals) this.coverage.set(where, trim(intervals, floor));
  }

  /**
   * A copy this process produced. With its offset (from the produce's acknowledgement) it is
   * indexed like a copy the reader read; without one it counts until a snapshot of round >=
   * `round` has been read.
   */
  addLocal(entry: ChainEntry, round: number): void {
    if (entry.offset !== undefined) this.add({ ...entry, offset: entry.offset });
    else this.local.push({ entry, round });
  }

  /** A snapshot of `round` is complete: the reader has read every copy acked before it began. */
  settleLocal(round: number): void {
    this.local = this.local.filter((each) => each.round > round);
  }

  /** The key's copies in the chain as far as this index knows; never fewer than there are. */
  chainOf(partition: number, keyId: string): ChainEntry[] {
    const read = [...(this.byKey.get(keySlot(partition, keyId)) ?? [])];
    const local = this.local
      .map((each) => each.entry)
      .filter((entry) => entry.partition === partition && entry.keyId === keyId);
    return [...read, ...local];
  }

  /** Copies held, for tests and for a size gauge. */
  get size(): number {
    let count = this.local.length;
    for (const copies of this.entries.values()) count += copies.size;
    return count;
  }

  private keyed(partition: number, keyId: string): Set<ChainEntry> {
    const where = keySlot(partition, keyId);
    const set = this.byKey.get(where) ?? new Set<ChainEntry>();
    this.byKey.set(where, set);
    return set;
  }
}

function merge(sorted: Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const [from, to] of sorted) {
    const last = out[out.length - 1];
    if (last && from <= last[1]) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}

function trim(intervals: Interval[], floor: number): Interval[] {
  return intervals
    .filter(([, to]) => to > floor)
    .map(([from, to]) => [Math.max(from, floor), to] as Interval);
}
