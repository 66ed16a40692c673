import type { ConsumerLike } from './contract';
import { KafkaRetryError } from './errors';
import type { SourceProgress } from './source-progress';

/**
 * One source partition in park-key mode: the records queued behind an older record of their
 * key (in memory, in source order per key), and the partition's progress, committed with its
 * metadata. A queued record keeps the group's commit below it, so it is never lost: a new owner
 * reads it again. T is what the runtime keeps per record (a delivery).
 */
export class SourceLane<T extends { message: { offset: string } }> {
  /** Per key (base64), the records waiting behind an older record of the key, oldest first. */
  readonly queues = new Map<string, T[]>();
  /** Keys whose queue is being handled right now. */
  readonly releasing = new Set<string>();
  /** Set when the partition went to another member: nothing more is committed from here. */
  dropped = false;
  /**
   * Set while this lane's last commit failed (a rebalance in progress, the coordinator moving):
   * the partition may be going to another member, which reads from the last commit that landed.
   */
  commitFailing = false;
  private committing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private lastMark: string | undefined;

  constructor(
    readonly topic: string,
    readonly partition: number,
    private readonly consumer: ConsumerLike,
    readonly progress: SourceProgress,
    /** The mark this lane was loaded from (what the broker held). */
    loadedMark: string,
  ) {
    this.lastMark = loadedMark;
  }

  /** Records held in memory (the bound the runtime enforces). */
  get held(): number {
    let count = 0;
    for (const queue of this.queues.values()) count += queue.length;
    return count;
  }

  isHeld(offset: string): boolean {
    for (const queue of this.queues.values())
      if (queue.some((each) => each.message.offset === offset)) return true;
    return false;
  }

  hold(keyId: string, record: T): void {
    this.progress.hold(BigInt(record.message.offset));
    const queue = this.queues.get(keyId) ?? [];
    queue.push(record);
    this.queues.set(keyId, queue);
  }

  /** The last mark this lane committed, or loaded: compared with the broker's after a rejoin. */
  get committedMark(): string | undefined {
    return this.lastMark;
  }

  /**
   * Runs `read` once no commit of this lane is in flight, and holds back the commits asked for
   * meanwhile until it is done: the group's commit it reads back is then this lane's last one,
   * unless someone else committed (or a reply was lost), never one of ours still on its way.
   */
  quiet<R>(read: () => Promise<R>): Promise<R> {
    const result = this.committing.catch(() => undefined).then(read);
    this.committing = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** The record's outcome is carried out: commit the new mark. */
  finish(offset: string): Promise<void> {
    if (this.dropped) return Promise.resolve();
    this.progress.finish(BigInt(offset));
    return this.commit();
  }

  /** Commits the current mark again; resolves whether it (or an equal one before it) landed. */
  recommit(): Promise<boolean> {
    if (this.dropped) return Promise.resolve(false);
    return this.commit().then(
      () => true,
      () => false,
    );
  }

  /** Leaves the record uncommitted and forgets it (a new owner, or a restart, reads it again). */
  drop(): void {
    this.dropped = true;
    this.queues.clear();
  }

  /**
   * One commit in flight per partition and at most one waiting, which sends the newest mark
   * when its turn comes: commits of one partition never overtake each other, and a burst of
   * finished records costs one or two commits.
   */
  private commit(): Promise<void> {
    if (this.queued) return this.queued;
    const queued = this.committing
      .catch(() => undefined)
      .then(async () => {
        this.queued = undefined;
        if (this.dropped) return;
        const mark = this.progress.mark();
        const text = `${mark.offset}|${mark.metadata}`;
        if (text === this.lastMark) {
          this.commitFailing = false;
          return;
        }
        try {
          await this.consumer.commitOffsets([
            {
              topic: this.topic,
              partition: this.partition,
              offset: String(mark.offset),
              metadata: mark.metadata,
            },
          ]);
          this.lastMark = text;
          this.commitFailing = false;
        } catch (cause) {
          this.commitFailing = true;
          throw new KafkaRetryError(
            'commit-failed',
            `committing ${this.topic}[${this.partition}] at ${mark.offset} failed`,
            { cause },
          );
        }
      });
    this.queued = queued;
    this.committing = queued;
    return queued;
  }
}

/** How a mark is compared: the offset and the metadata, as the broker returns them. */
export function markText(offset: string, metadata: string | null | undefined): string {
  return `${offset}|${metadata ?? ''}`;
}
