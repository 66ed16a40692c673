import type { Clock } from '../clock';
import type { ChainEntry } from './chain-index';
import type { ChainView } from './chain-view';
import type { AdminLike, ConsumerLike } from './contract';
import { headOf, type Placement, placeInChain } from './parking';
import { markText, SourceLane } from './source-lane';
import { type IgnoredMarkReason, type MarkReading, readMark, SourceProgress } from './source-progress';

/**
 * Park-key ordering: a record is handled only when no older record of its key is in the retry
 * chain (docs/kafka.md, "Per-key order").
 *
 * - A source record whose key has a record in the chain is **queued** in memory behind it, in
 *   source order, and the partition goes on. The main group's commit stays below the queued
 *   record and its metadata lists what is done past it (source-progress.ts), so a crash or a
 *   rebalance loses nothing: the new owner reads the queued records again and skips the rest.
 *   A queued key is released when its chain empties: at once when this process committed the
 *   record's last step, else at the next refresh of the chain view.
 * - So a key has at most one record in the chain, and a record read from a retry topic needs no
 *   fresh snapshot: the view this process holds is enough, unless it shows an older record of
 *   the key (a rebalance, a crash duplicate) or the copy was parked, which the runtime does only
 *   when a partition's queue is full: then the key's queued records are parked into the chain
 *   behind its head, as copies, in order.
 * - After a (re)assignment, seen as a group join or a jump in the partition's offsets, the view
 *   may lack copies another member put in the chain: the first record takes a fresh snapshot,
 *   and the partition's progress is read back from the group's commit.
 */

/** A due copy read from a retry topic, as inChain needs it. */
export interface RetryCopy {
  topic: string;
  offset: string;
  /** Its record timestamp (when it was produced). */
  timestamp: string;
  /** Its `retry-first-failure-at`, when readable. */
  firstFailureAt?: number;
}

/**
 * Whether the chain holds this copy's next copy: the same record (key, sequence, and the
 * first-failure time every copy of a record carries unchanged), produced after this copy. A copy
 * from another record cannot match: a record that failed at another millisecond, or one of an
 * earlier topic of that name, has another first-failure time. A copy without one never matches.
 */
function superseded(chain: ChainEntry[], sequence: number | undefined, copy: RetryCopy): boolean {
  if (sequence === undefined || copy.firstFailureAt === undefined) return false;
  const timestamp = Number(copy.timestamp);
  return chain.some(
    (entry) =>
      entry.sequence === sequence &&
      entry.firstFailureAt === copy.firstFailureAt &&
      entry.producedAt > timestamp &&
      !(entry.topic === copy.topic && entry.offset === Number(copy.offset)),
  );
}

export type SourceDecision<T> =
  /** Read before and done, or already queued in memory: nothing to do. */
  | { kind: 'skip' }
  /** Its copy is in the chain already (its commit was lost): commit it as done, do not handle it. */
  | { kind: 'in-chain' }
  | { kind: 'handle' }
  | { kind: 'queue'; behind: number }
  /** The partition's queue is full: park these queued records of the key, then this one. */
  | { kind: 'park'; placement: Extract<Placement, { kind: 'park' }>; queued: T[] };

export interface KeyOrderingOptions<T> {
  view: ChainView;
  clock: Clock;
  admin: AdminLike;
  mainGroup: string;
  /** Queued records per source partition before the oldest key's are parked into the chain. */
  maxQueued: number;
  /** How often the view is refreshed while a key waits on a record another process holds. */
  refreshMs: number;
  /** Handles a released record; resolves false when a step failed and it must be tried again later. */
  release: (record: T) => Promise<boolean>;
  /** Commits a queued record whose copy is in the chain already as done, without handling it. */
  settle: (record: T) => Promise<void>;
  /** Back-off before a released record that failed is tried again. */
  retryReleaseInMs: () => number;
  /** The main group's commit carried metadata that is not this runtime's mark for that offset. */
  ignoredMark: (at: IgnoredMark) => void;
}

export interface IgnoredMark {
  topic: string;
  partition: number;
  /** The commit's offset: every record from it is handled again. */
  offset: string;
  metadata: string;
  reason: IgnoredMarkReason;
}

type Held = {
  consumer: ConsumerLike;
  topic: string;
  partition: number;
  message: { offset: string; timestamp: string };
};

/**
 * Whether the chain holds a copy of this very source record: its copy landed but its source
 * commit did not (a lost produce reply, a crash or a rebalance between the two). The retry
 * consumer handles that copy, so the source record is done. A copy counts only if it was
 * produced at or after the record's timestamp: a copy left from an earlier topic of that name
 * (deleted and created again, its offsets starting over) is older than the record, and a
 * record wrongly taken for copied would be lost, where one wrongly taken for not copied only
 * runs twice.
 */
function copied(chain: ChainEntry[], record: Held): boolean {
  const sequence = Number(record.message.offset);
  const timestamp = Number(record.message.timestamp);
  return chain.some((entry) => entry.sequence === sequence && entry.producedAt >= timestamp);
}

export class KeyOrdering<T extends Held> {
  /** Per source partition, the offset of the last record placed. */
  private readonly lastSeen = new Map<number, bigint>();
  /** Per retry topic and partition, the offset of the last due record placed. */
  private readonly retrySeen = new Map<string, number>();
  private readonly lanes = new Map<number, SourceLane<T>>();
  private readonly stopping = new AbortController();
  private refreshing = false;

  constructor(private readonly options: KeyOrderingOptions<T>) {}

  private get view(): ChainView {
    return this.options.view;
  }

  /** The consumer joined the group again; `partitions` (when known) are the ones it now owns. */
  assigned(partitions?: number[]): void {
    this.lastSeen.clear();
    if (!partitions) return;
    for (const [partition, lane] of this.lanes) {
      if (partitions.includes(partition)) continue;
      lane.drop();
      this.lanes.delete(partition);
    }
  }

  /** The lane a source record belongs to, for its commit. */
  laneOf(partition: number): SourceLane<T> | undefined {
    return this.lanes.get(partition);
  }

  async fromSource(record: T, keyId: string | undefined): Promise<SourceDecision<T>> {
    const { partition, message } = record;
    const offset = BigInt(message.offset);
    const previous = this.lastSeen.get(partition);
    this.lastSeen.set(partition, offset);
    const jumped = previous === undefined || previous + 1n !== offset;
    if (jumped || this.view.oversized) await this.view.fresh();
    const { lane, loaded } = await this.laneFor(record, jumped);
    if (loaded && lane.progress.pendingBelow(offset)) {
      // The commit lists records before this one as still to be handled, and the consumer is
      // past them: it came here by a seek after a failure or across a gap in the offsets, not
      // from the commit. Read from the commit again, or they would never be handled.
      record.consumer.seek({ topic: record.topic, partition, offset: String(lane.progress.mark().offset) });
      return { kind: 'skip' };
    }
    if (lane.progress.isDone(offset) || lane.isHeld(message.offset)) return { kind: 'skip' };
    if (keyId === undefined) return { kind: 'handle' };

    const queue = lane.queues.get(keyId) ?? [];
    const chain = this.view.index.chainOf(partition, keyId);
    if (copied(chain, record)) return { kind: 'in-chain' };
    const head = headOf(chain);
    if (!head && queue.length === 0) return { kind: 'handle' };
    const full = lane.held >= this.options.maxQueued || !lane.progress.fits(offset);
    if (full && head && !lane.releasing.has(keyId)) {
      // They stay queued until each is parked: a failed produce leaves the rest queued, in order.
      const placement = {
        kind: 'park' as const,
        topic: head.topic,
        notBefore: Math.max(this.options.clock.now(), head.notBefore ?? 0),
        head,
      };
      return { kind: 'park', placement, queued: [...queue] };
    }
    lane.hold(keyId, record);
    // A key whose chain is already empty (its release is running) is picked up by that release.
    if (!head) this.releaseReady();
    else this.keepRefreshing();
    return { kind: 'queue', behind: head?.sequence ?? Number(queue[0]?.message.offset ?? message.offset) };
  }

  /**
   * A due record read from a retry topic. A copy that entered the chain by failing had nothing
   * older of its key in the chain then, and nothing older enters after it: the view at hand is
   * enough unless it shows an older record, or the copy was parked. Then a fresh snapshot decides.
   * So does the first record of a partition this consumer was not reading just before (a new
   * assignment): a member that died there may have produced the copy's next copy.
   *
   * A copy whose next copy is in the chain already is `superseded`: its step was carried out
   * and only its commit was lost (a crash, a rebalance). Its next copy carries the record on.
   */
  async inChain(
    partition: number,
    keyId: string,
    sequence: number | undefined,
    parked: boolean,
    copy: RetryCopy,
  ): Promise<Placement | { kind: 'superseded' }> {
    const where = `${copy.topic}\u0000${partition}`;
    const offset = Number(copy.offset);
    const previous = this.retrySeen.get(where);
    this.retrySeen.set(where, offset);
    // Read again after a hold, or the next record: not a jump.
    const jumped = previous === undefined || (offset !== previous && offset !== previous + 1);
    if (jumped) {
      await this.view.fresh();
      this.releaseReady();
    }
    const now = this.options.clock.now();
    const chain = this.view.index.chainOf(partition, keyId);
    if (superseded(chain, sequence, copy)) return { kind: 'superseded' };
    const stale = placeInChain(chain, sequence, now);
    if (jumped || (stale.kind === 'handle' && !parked)) return stale;
    await this.view.fresh();
    this.releaseReady();
    const fresh = this.view.index.chainOf(partition, keyId);
    if (superseded(fresh, sequence, copy)) return { kind: 'superseded' };
    return placeInChain(fresh, sequence, this.options.clock.now());
  }

  /** A copy this process just produced into a retry topic, counted before the reader sees it. */
  produced(entry: ChainEntry): void {
    this.view.index.addLocal(entry, this.view.nextRound);
  }

  /**
   * This process committed a retry topic past `offset`: every copy below has left the chain,
   * so keys waiting on it can go at once, without waiting for a snapshot.
   */
  retryCommitted(topic: string, partition: number, offset: string): void {
    this.view.index.setFloor(topic, partition, Number(offset) + 1);
    this.releaseReady();
  }

  /**
   * No more releases. A queued record stays uncommitted (the next owner reads it again); one
   * being handled right now still commits, so a graceful stop leaves no needless duplicate.
   */
  stop(): void {
    this.stopping.abort();
  }

  /** Starts the release of every queued key whose chain is empty. */
  releaseReady(): void {
    if (this.stopping.signal.aborted) return;
    for (const lane of this.lanes.values()) {
      for (const [keyId, queue] of lane.queues) {
        if (queue.length === 0 || lane.releasing.has(keyId)) continue;
        const chain = this.view.index.chainOf(lane.partition, keyId);
        if (headOf(chain) && !copied(chain, queue[0] as T)) continue;
        lane.releasing.add(keyId);
        void this.drain(lane, keyId);
      }
    }
  }

  /** Handles a key's queued records in order, until one of them enters the chain. */
  private async drain(lane: SourceLane<T>, keyId: string): Promise<void> {
    let retryInMs: number | undefined;
    try {
      for (;;) {
        const queue = lane.queues.get(keyId);
        const next = queue?.[0];
        if (!next || lane.dropped || this.stopping.signal.aborted) break;
        const chain = this.view.index.chainOf(lane.partition, keyId);
        const settled = copied(chain, next);
        if (headOf(chain) && !settled) break;
        if (!this.owns(next)) {
          lane.drop();
          this.lanes.delete(lane.partition);
          break;
        }
        // Its commit failed: the partition may be moving, and the next owner reads from the last
        // commit that landed, so it runs the records released since then again. Release no more
        // (never the key's next record before the new owner runs this one again) until a commit
        // lands; if the partition moved, the lane is dropped meanwhile.
        if (lane.commitFailing && !(await lane.recommit())) {
          retryInMs = this.options.retryReleaseInMs();
          break;
        }
        if (settled) await this.options.settle(next);
        else if (!(await this.options.release(next))) {
          retryInMs = this.options.retryReleaseInMs();
          break;
        }
        queue?.shift();
        if (queue?.length === 0) lane.queues.delete(keyId);
      }
    } finally {
      lane.releasing.delete(keyId);
    }
    if (retryInMs !== undefined) {
      await this.options.clock.sleep(retryInMs, this.stopping.signal).catch(() => undefined);
      this.releaseReady();
    } else if (lane.queues.get(keyId)?.length) this.keepRefreshing();
  }

  /** The Confluent client says what it owns; KafkaJS reports it with the group join instead. */
  private owns(record: T): boolean {
    const assignment = record.consumer.assignment?.();
    if (!assignment) return true;
    return assignment.some((each) => each.topic === record.topic && each.partition === record.partition);
  }

  /** Refreshes the view while some key waits on the chain, for releases this process cannot see. */
  private keepRefreshing(): void {
    if (this.refreshing || this.stopping.signal.aborted) return;
    this.refreshing = true;
    void (async () => {
      try {
        while (!this.stopping.signal.aborted && this.anyWaiting()) {
          await this.options.clock.sleep(this.options.refreshMs, this.stopping.signal).catch(() => undefined);
          if (this.stopping.signal.aborted) break;
          // A failed snapshot is tried again on the next turn; the queued records stay uncommitted.
          await this.view.fresh().catch(() => undefined);
          this.releaseReady();
        }
      } finally {
        this.refreshing = false;
      }
    })();
  }

  private anyWaiting(): boolean {
    for (const lane of this.lanes.values())
      for (const [keyId, queue] of lane.queues)
        if (queue.length > 0 && !lane.releasing.has(keyId)) return true;
    return false;
  }

  /**
   * The lane of the record's partition. After a jump (a new assignment, a rejoin, or a seek
   * after a failure) it is read back from the group's commit, unless that is still what this
   * lane last committed: then nobody else owned the partition meanwhile, and the records queued
   * here are still this lane's to handle. If the commit differs (somebody else committed, or a
   * commit of ours landed although its reply was lost), they are dropped: the consumer reads
   * them again from that commit (fromSource seeks back to it when the consumer is past it), or
   * they were done there.
   */
  private async laneFor(record: T, jumped: boolean): Promise<{ lane: SourceLane<T>; loaded: boolean }> {
    const current = this.lanes.get(record.partition);
    if (current && !jumped) return { lane: current, loaded: false };
    const fetch = () =>
      this.options.admin.fetchOffsets({ groupId: this.options.mainGroup, topics: [record.topic] });
    // Compared with what this lane last committed: none of its commits may be in flight meanwhile.
    const offsets = await (current ? current.quiet(fetch) : fetch());
    const mark = offsets
      .find((each) => each.topic === record.topic)
      ?.partitions.find((each) => each.partition === record.partition);
    const committed = mark && BigInt(mark.offset) >= 0n ? mark.offset : undefined;
    const text = markText(committed ?? '', mark?.metadata);
    if (current && current.committedMark === text) return { lane: current, loaded: false };
    const reading =
      committed === undefined
        ? { kind: 'none' as const }
        : await this.readCommit(record, committed, mark?.metadata);
    current?.drop();
    const base = committed === undefined ? BigInt(record.message.offset) : BigInt(committed);
    const lane = new SourceLane<T>(
      record.topic,
      record.partition,
      record.consumer,
      new SourceProgress(base, reading),
      text,
    );
    this.lanes.set(record.partition, lane);
    return { lane, loaded: true };
  }

  /**
   * What the group's commit says is done past it. A mark that says records past the end of the
   * log are done is not this log's: the end is read after the commit, and a mark this runtime
   * wrote never passes the end it had read. Anything but this runtime's mark for that offset is
   * reported (a clear line for the operator) and ignored: every record from the commit runs again.
   */
  private async readCommit(
    record: T,
    committed: string,
    metadata: string | null | undefined,
  ): Promise<MarkReading> {
    let reading = readMark(BigInt(committed), metadata);
    if (reading.kind === 'mark' && reading.high > BigInt(committed)) {
      const ends = await this.options.admin.fetchTopicOffsets(record.topic);
      const end = ends.find((each) => each.partition === record.partition);
      reading = readMark(BigInt(committed), metadata, end === undefined ? undefined : BigInt(end.high));
    }
    if (reading.kind === 'ignored') {
      this.options.ignoredMark({
        topic: record.topic,
        partition: record.partition,
        offset: committed,
        metadata: metadata ?? '',
        reason: reading.reason,
      });
    }
    return reading;
  }
}
