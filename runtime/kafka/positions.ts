import type { ConsumerLike, KafkaClient } from './contract';

/**
 * The one owner of a consumer's partition positions: every pause, resume, seek and commit the
 * runtime makes goes through here, and nothing else calls them on the consumer.
 *
 * - It changes a partition's position only between batches of that partition: a change asked
 *   for while a batch of it runs waits for the batch to end. (The Confluent client applies
 *   every pause, resume and seek once all its running batches end; a change made in the middle
 *   of a batch would also mark that batch stale.)
 * - Every change belongs to the assignment it was asked in. The group's assignments are counted
 *   (`assigned`, `revoked`); a change or a commit from an earlier one is dropped. Both clients
 *   keep a seek for a partition they no longer hold and apply it when it comes back, and a
 *   commit made by a batch that began before the partition moved away and came back would move
 *   the group's commit back over what another member committed meanwhile.
 * - A commit never moves a partition backwards: in each assignment the floor is the group's
 *   commit where it was read (per-key order reads it for every partition of its chains), else
 *   where the partition's first batch began (both clients start a partition that comes back from
 *   the group's commit), and every commit made since.
 */

/** A batch of one partition, from `begin` to `end`. */
export interface Turn {
  readonly topic: string;
  readonly partition: number;
  /** The assignment it began in. */
  readonly assignment: number;
  readonly firstOffset: bigint;
}

/** A change asked for while a batch of its partition ran, applied when the batch ends. */
interface Change {
  seek?: string;
  paused?: boolean;
}

interface PartitionState {
  /** Batches of it running (the clients run one at a time; counted to be safe). */
  running: number;
  pending?: Change & { asOf: number };
  /** The assignment `floor` belongs to. */
  assignment: number;
  /** No commit goes below this in `assignment`. */
  floor: bigint;
}

export type CommitOutcome = 'committed' | 'not-forward' | 'outdated';

export class Positions {
  private assignment = 0;
  /** The consumer is stopping: its partitions stay paused, whatever comes. */
  private stopped = false;
  private readonly partitions = new Map<string, PartitionState>();

  constructor(
    private readonly consumer: ConsumerLike,
    private readonly client: KafkaClient,
  ) {}

  /** The current assignment's number: a change asked for later with it is dropped once another comes. */
  get current(): number {
    return this.assignment;
  }

  /**
   * The member's new assignment. Changes of the last one are dropped, and every partition of
   * `partitions` is resumed: a pause may survive a rebalance (KafkaJS keeps it; librdkafka may),
   * and each assignment starts from the group's commit, unpaused. The Confluent client calls
   * back before it makes the assignment, so its resume waits a turn of the event loop.
   */
  assigned(partitions: Array<{ topic: string; partition: number }>): number {
    this.assignment++;
    for (const state of this.partitions.values()) delete state.pending;
    const asOf = this.assignment;
    if (this.stopped) return asOf;
    const resume = () => {
      for (const { topic, partition } of partitions) this.resume(topic, partition, asOf);
    };
    if (this.client === 'kafkajs') resume();
    else setImmediate(resume);
    return asOf;
  }

  /** The member lost its partitions: what it asked for before is dropped. */
  revoked(): void {
    this.assignment++;
    for (const state of this.partitions.values()) delete state.pending;
  }

  /** The consumer is stopping: pauses still apply, nothing is resumed or sought any more. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * The group's commit on a partition, read for the assignment `asOf`: no commit of this member
   * goes below it while that assignment lasts.
   */
  groupCommit(topic: string, partition: number, commit: bigint, asOf: number): void {
    if (asOf !== this.assignment) return;
    const state = this.stateOf(topic, partition);
    if (state.assignment !== asOf) {
      state.assignment = asOf;
      state.floor = commit;
    } else if (commit > state.floor) state.floor = commit;
  }

  /** A batch of the partition begins: changes to it wait for `end`. */
  begin(topic: string, partition: number, firstOffset: bigint): Turn {
    const state = this.stateOf(topic, partition);
    state.running++;
    if (state.assignment !== this.assignment) {
      state.assignment = this.assignment;
      state.floor = firstOffset;
    }
    return { topic, partition, assignment: this.assignment, firstOffset };
  }

  /** The batch ended: the changes asked for meanwhile are made now, in their assignment only. */
  end(turn: Turn): void {
    const state = this.stateOf(turn.topic, turn.partition);
    state.running = Math.max(0, state.running - 1);
    if (state.running > 0 || !state.pending) return;
    const { pending } = state;
    delete state.pending;
    if (pending.asOf !== this.assignment) return;
    this.apply(turn.topic, turn.partition, pending);
  }

  pause(topic: string, partition: number, asOf = this.assignment): void {
    this.change(topic, partition, { paused: true }, asOf);
  }

  resume(topic: string, partition: number, asOf = this.assignment): void {
    this.change(topic, partition, { paused: false }, asOf);
  }

  /** Reads the partition next from `offset`; a pause asked for with it stays. */
  seek(topic: string, partition: number, offset: string, asOf = this.assignment): void {
    this.change(topic, partition, { seek: offset }, asOf);
  }

  /**
   * Commits `offset` (the next record to read) for the turn's partition, unless the partition
   * has been assigned again since the turn began (`outdated`) or the commit would not move it
   * forward (`not-forward`). `stale` is the batch's own word (the Confluent client marks a
   * batch stale when its partition is revoked). Rejects when the client's commit fails.
   */
  async commit(turn: Turn, offset: bigint, stale: () => boolean): Promise<CommitOutcome> {
    if (turn.assignment !== this.assignment || stale()) return 'outdated';
    const state = this.stateOf(turn.topic, turn.partition);
    if (offset <= state.floor) return 'not-forward';
    await this.consumer.commitOffsets([
      { topic: turn.topic, partition: turn.partition, offset: String(offset) },
    ]);
    // Checked again: the group may have rebalanced while the commit was on its way.
    if (state.assignment === turn.assignment && offset > state.floor) state.floor = offset;
    return 'committed';
  }

  private change(topic: string, partition: number, change: Change, asOf: number): void {
    if (asOf !== this.assignment) return;
    const state = this.stateOf(topic, partition);
    if (state.running > 0) {
      const earlier = state.pending?.asOf === asOf ? state.pending : {};
      state.pending = { ...earlier, ...change, asOf };
      return;
    }
    this.apply(topic, partition, change);
  }

  private apply(topic: string, partition: number, change: Change): void {
    const partitions = [{ topic, partitions: [partition] }];
    try {
      if (this.stopped) {
        if (change.paused === true) this.consumer.pause(partitions);
        return;
      }
      if (change.seek !== undefined) this.consumer.seek({ topic, partition, offset: change.seek });
      if (change.paused === true) this.consumer.pause(partitions);
      else if (change.paused === false) this.consumer.resume(partitions);
    } catch {
      // Not connected any more, or not this member's: the consumer is going away, or the next
      // assignment starts the partition from the group's commit.
    }
  }

  private stateOf(topic: string, partition: number): PartitionState {
    const where = `${topic}\u0000${partition}`;
    let state = this.partitions.get(where);
    if (!state) {
      state = { running: 0, assignment: -1, floor: -1n };
      this.partitions.set(where, state);
    }
    return state;
  }
}
