/**
 * Which acks to send on one channel, decided from delivery tags alone (pure: no channel, no I/O).
 *
 * A delivery tag numbers every delivery on a channel, 1, 2, 3 …, whichever consumer or
 * basic.get it went to. `basic.ack(T, multiple)` settles every unacked delivery on the channel
 * up to T, and fails the channel with 406 when T itself is not unacked (rabbit_channel
 * collect_acks, checked on 3.10.8). So a multiple ack up to T is safe only when every tag up to T
 * was delivered to a consumer this ledger serves and is finished or already settled, and T itself
 * is finished.
 *
 * The ledger sees only its own deliveries. A tag it never saw (a plain `channel.consume`, a
 * `channel.get`, or deliveries made before the ledger existed) shows up as a gap in the sequence;
 * such a delivery may still be unacked, and nothing here learns when it is settled, so no
 * multiple ack may ever reach it. The batching floor stops below the first gap for good, and
 * everything above it is acked one by one.
 */

export interface AckInstruction {
  tag: number;
  /** Settle every unacked tag up to `tag` (all of them finished deliveries of this ledger). */
  multiple: boolean;
}

type State = 'running' | 'finished' | 'settled';

export class AckLedger {
  /** Every tag at or below it is settled. */
  private floor = 0;
  private lastSeen = 0;
  /** No multiple ack may reach past this tag: a delivery the ledger never saw lies above it. */
  private batchLimit = Number.POSITIVE_INFINITY;
  /**
   * Tags above the floor that the ledger saw. The walk in take() stops at any tag missing here,
   * which is what keeps a multiple ack off deliveries it never saw; batchLimit lets it forget the
   * settled tags above a gap, which the floor can never pass.
   */
  private readonly states = new Map<number, State>();
  /** Finished and not yet acked. */
  private readonly ready: number[] = [];

  /** A delivery to a consumer this ledger serves (in tag order: the broker sends them that way). */
  delivered(tag: number): void {
    if (tag !== this.lastSeen + 1) {
      // Tags lastSeen+1 … tag-1 went elsewhere (or, going backwards, the numbering restarted).
      this.batchLimit = Math.min(this.batchLimit, tag > this.lastSeen ? this.lastSeen : 0);
    }
    this.lastSeen = Math.max(this.lastSeen, tag);
    this.states.set(tag, 'running');
  }

  /** The delivery's work is done; it may be acked. */
  finished(tag: number): void {
    if (this.states.get(tag) !== 'running') return;
    this.states.set(tag, 'finished');
    this.ready.push(tag);
  }

  /** The delivery was settled some other way (rejected, nacked): never ack it. */
  settled(tag: number): void {
    const state = this.states.get(tag);
    if (state === undefined || state === 'settled') return;
    if (state === 'finished') this.ready.splice(this.ready.indexOf(tag), 1);
    this.markSettled(tag);
  }

  /** Finished deliveries waiting for their ack. */
  get pending(): number {
    return this.ready.length;
  }

  /** Tags it still holds (bounded by the deliveries not yet settled plus those behind them). */
  get size(): number {
    return this.states.size;
  }

  /**
   * The acks to send now, in order: at most one multiple ack for the finished run at the front,
   * then single acks for finished deliveries behind a running one (so a slow message never holds
   * the others' prefetch slots). Every returned tag counts as settled.
   */
  take(): AckInstruction[] {
    if (this.ready.length === 0) return [];
    const out: AckInstruction[] = [];
    let front = 0;
    let covered = 0;
    for (let tag = this.floor + 1; tag <= this.batchLimit; tag++) {
      const state = this.states.get(tag);
      if (state === 'finished') {
        front = tag;
        covered++;
      } else if (state !== 'settled') break;
    }
    if (front > 0) {
      out.push({ tag: front, multiple: covered > 1 });
      for (let tag = this.floor + 1; tag <= front; tag++) this.states.delete(tag);
      this.floor = front;
      this.advanceFloor();
    }
    for (const tag of this.ready) {
      if (tag <= front) continue;
      out.push({ tag, multiple: false });
      this.markSettled(tag);
    }
    this.ready.length = 0;
    return out;
  }

  private markSettled(tag: number): void {
    if (tag > this.batchLimit) this.states.delete(tag);
    else this.states.set(tag, 'settled');
    this.advanceFloor();
  }

  /** Moves the floor over settled tags, forgetting them. */
  private advanceFloor(): void {
    while (this.floor < this.batchLimit && this.states.get(this.floor + 1) === 'settled') {
      this.floor++;
      this.states.delete(this.floor);
    }
  }
}
