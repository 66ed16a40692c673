/**
 * Per-key order when one member owns a whole chain (source partition p and partition p of every
 * retry topic): what the owner knows of its chain, and the rule that keeps a key in order. Pure
 * data, no I/O.
 *
 * Only the chain's owner writes into its retry partitions, so once it has read them to their end
 * (chains.ts) it knows every record of the chain, and it keeps knowing by recording its own
 * acknowledged copies. A record is known by its sequence: its offset on the source topic, which
 * every copy carries (`retry-original-offset`). A record may have more than one copy in the logs
 * for a moment (a copy acknowledged, the commit past the old one not made yet): the newest copy
 * is the record, the older ones are left behind.
 *
 * After a crash or a move to another member, older copies can lie unread below the commits for
 * longer: the new owner may run a record's newest copy before it reads an older one (they are in
 * different partitions). So a record the scan found is not forgotten when it leaves the chain:
 * its newest copy's time stays, and an older copy read later is left behind instead of run a
 * second time. Only scanned records are kept so, until the next assignment (at most the chain's
 * backlog when it was assigned); a record copied by this owner has its older copy committed
 * behind it, or remembered in done-ahead.ts when that commit failed.
 */

/** Where a record of the chain waits: its newest copy. */
export interface Waiting {
  sequence: number;
  /** The retry topic the copy is in. */
  topic: string;
  /** The copy's record timestamp (the engine sets it when it produces the copy). */
  producedAt: number;
  /** When it is due (`retry-not-before`), when readable. */
  notBefore?: number;
  /** Found by the scan after an assignment: older copies may lie unread below the commits. */
  scanned?: boolean;
}

/** What to do with a record read from the chain's source partition or one of its retry partitions. */
export type Place =
  | { kind: 'run' }
  /** Its newest copy is further along the chain: this one is done (a commit past it was missed). */
  | { kind: 'left-behind' }
  /** An older record of its key is in the chain: copy it behind `head`, due when the head is. */
  | { kind: 'park'; head: Waiting; topic: string; notBefore: number };

/** The records of one chain in its retry topics, by key. */
export class KeyIndex {
  private readonly keys = new Map<string, Map<number, Waiting>>();
  /** Scanned records that left the chain: key and sequence to their newest copy's time. */
  private readonly finished = new Map<string, number>();

  /** A new index that keeps only what this one knows of finished records (the chain read again). */
  afresh(): KeyIndex {
    const index = new KeyIndex();
    for (const [where, at] of this.finished) index.finished.set(where, at);
    return index;
  }

  /**
   * A copy read or produced. A copy older than the one known for its record is left out: the
   * record has moved on from it.
   */
  put(keyId: string, waiting: Waiting): void {
    let records = this.keys.get(keyId);
    if (!records) {
      records = new Map();
      this.keys.set(keyId, records);
    }
    const known = records.get(waiting.sequence);
    if (known && known.producedAt > waiting.producedAt) {
      if (waiting.scanned) known.scanned = true;
      return;
    }
    records.set(waiting.sequence, known?.scanned ? { ...waiting, scanned: true } : waiting);
  }

  /** The record left the chain (it succeeded, or its dead letter is acknowledged). */
  remove(keyId: string, sequence: number): void {
    const records = this.keys.get(keyId);
    const known = records?.get(sequence);
    if (!records || !known) return;
    if (known.scanned) this.finished.set(finishedKey(keyId, sequence), known.producedAt);
    records.delete(sequence);
    if (records.size === 0) this.keys.delete(keyId);
  }

  /** For a scanned record that left the chain: its newest copy's time. */
  finishedAt(keyId: string, sequence: number): number | undefined {
    // Nearly always empty: no key string made per record then.
    if (this.finished.size === 0) return undefined;
    return this.finished.get(finishedKey(keyId, sequence));
  }

  /** Nothing is known of the key: no record of it waits, and no scanned record finished. */
  unknown(keyId: string): boolean {
    return this.finished.size === 0 && !this.keys.has(keyId);
  }

  get(keyId: string, sequence: number): Waiting | undefined {
    return this.keys.get(keyId)?.get(sequence);
  }

  /** The key's oldest record in the chain (smallest sequence), if any older than `before`. */
  head(keyId: string, before = Number.POSITIVE_INFINITY): Waiting | undefined {
    let head: Waiting | undefined;
    for (const waiting of this.keys.get(keyId)?.values() ?? []) {
      if (waiting.sequence < before && (!head || waiting.sequence < head.sequence)) head = waiting;
    }
    return head;
  }

  /** Records known, for tests and a gauge. */
  get size(): number {
    let count = 0;
    for (const records of this.keys.values()) count += records.size;
    return count;
  }
}

/** What `place` needs to know of a record. */
export interface Placing {
  /** Null keys are never ordered. */
  keyId: string | undefined;
  /** Its source offset; undefined for a retry copy without a readable origin (never ordered). */
  sequence: number | undefined;
  /** Read from the source topic, rather than from a retry topic. */
  fromSource: boolean;
  /** The topic it was read from, and its record timestamp. */
  topic: string;
  timestamp: number;
  now: number;
}

/**
 * The one rule of per-key order: a record runs only when no older record of its key (a smaller
 * sequence) is in the chain; otherwise it is parked behind the key's oldest, in that record's
 * topic, due when it is. A record whose newer copy is already in the chain is done: a source
 * record that was copied before a crash, or a retry copy that moved on before its commit.
 */
const RUN: Place = { kind: 'run' };

export function place(index: KeyIndex, record: Placing): Place {
  const { keyId, sequence } = record;
  if (keyId === undefined || sequence === undefined) return RUN;
  // A copy no newer than the one that finished the record (a newer one is a new record).
  const finishedAt = index.finishedAt(keyId, sequence);
  if (finishedAt !== undefined && finishedAt >= record.timestamp) return { kind: 'left-behind' };
  const known = index.get(keyId, sequence);
  if (known) {
    const isThisCopy =
      !record.fromSource && known.topic === record.topic && known.producedAt === record.timestamp;
    // A copy is produced after what it copies was read, so it is newer: a record no newer than
    // the known copy is that copy's past. (A newer one is a new record at a reused offset, as
    // after a topic was deleted and made again: it is placed as any other.)
    if (!isThisCopy && known.producedAt >= record.timestamp) return { kind: 'left-behind' };
  }
  const head = index.head(keyId, sequence);
  if (!head) return RUN;
  return {
    kind: 'park',
    head,
    topic: head.topic,
    notBefore: Math.max(record.now, head.notBefore ?? record.now),
  };
}

function finishedKey(keyId: string, sequence: number): string {
  return `${keyId}\u0000${sequence}`;
}
