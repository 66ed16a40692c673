import type { Clock } from '../clock';
import type { ConsumerLike } from './contract';

/**
 * Holds a partition without blocking the poll loop: seek back to the record, pause the
 * partition, resume it later. While paused the client keeps polling its other partitions and
 * keeps heartbeating (KafkaJS 2.2.4 sleeps `maxWaitTimeInMs` and heartbeats when every partition
 * is paused), so a wait of any length causes no rebalance. The record is read again after the
 * resume, and the due check runs again then: a hold that ends early is harmless.
 *
 * A hold does not survive a rebalance, and does not need to: the new owner reads the record at
 * the committed offset and holds it itself.
 */
export class PartitionGate {
  private readonly holds = new Map<string, AbortController>();
  private readonly failures = new Map<string, number>();
  private readonly stopped = new AbortController();

  constructor(
    private readonly consumer: ConsumerLike,
    private readonly clock: Clock,
    private readonly backoff: { initialMs: number; maxMs: number },
  ) {}

  /** Reads `offset` again no earlier than `until` (epoch ms). */
  holdUntil(topic: string, partition: number, offset: string, until: number): void {
    this.hold(topic, partition, offset, Math.max(0, until - this.clock.now()));
  }

  /**
   * After a failed produce or commit: read the record again after a back-off that doubles with
   * each failure in a row on this partition (never a hot loop), and returns it.
   */
  holdAfterFailure(topic: string, partition: number, offset: string): number {
    const where = `${topic}:${partition}`;
    const failures = (this.failures.get(where) ?? 0) + 1;
    this.failures.set(where, failures);
    const waitMs = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** Math.min(failures - 1, 30));
    this.hold(topic, partition, offset, waitMs);
    return waitMs;
  }

  /** A record on this partition went through: the next failure starts the back-off over. */
  succeeded(topic: string, partition: number): void {
    this.failures.delete(`${topic}:${partition}`);
  }

  /** Leaves the partition paused at `offset` for good: the consumer is stopping. */
  park(topic: string, partition: number, offset: string): void {
    this.consumer.seek({ topic, partition, offset });
    this.consumer.pause([{ topic, partitions: [partition] }]);
  }

  stop(): void {
    this.stopped.abort();
    for (const hold of this.holds.values()) hold.abort();
    this.holds.clear();
  }

  private hold(topic: string, partition: number, offset: string, waitMs: number): void {
    if (this.stopped.signal.aborted) return;
    const where = `${topic}:${partition}`;
    this.holds.get(where)?.abort();
    const hold = new AbortController();
    this.holds.set(where, hold);
    this.consumer.seek({ topic, partition, offset });
    this.consumer.pause([{ topic, partitions: [partition] }]);
    this.clock.sleep(waitMs, hold.signal).then(
      () => {
        if (this.holds.get(where) === hold) this.holds.delete(where);
        try {
          this.consumer.resume([{ topic, partitions: [partition] }]);
        } catch {
          // The partition went to another member meanwhile (the Confluent client refuses to
          // resume an unassigned partition): its new owner reads the record from the commit.
        }
      },
      () => undefined,
    );
  }
}
