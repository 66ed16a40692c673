import type { Clock } from '../clock';
import type { Positions } from './positions';

/**
 * Holds a partition without blocking the poll loop: pause it, resume it later, through the
 * consumer's position owner (positions.ts), in the assignment the hold began in. It never seeks:
 * the engine resolves a batch's records only up to the first one it did not carry out, and both
 * clients read a partition again from there (KafkaJS from its resolved offset, the Confluent
 * client by its own seek after the batch). A seek of ours could outlive the assignment it was
 * made in: both clients keep a seek for a partition they no longer hold and apply it when the
 * partition comes back, which would read again what another member committed meanwhile.
 *
 * While paused the client keeps polling its other partitions and keeps heartbeating (KafkaJS
 * 2.2.4 sleeps `maxWaitTimeInMs` and heartbeats when every partition is paused), so a wait of any
 * length causes no rebalance. The record is read again after the resume, and the due check runs
 * again then: a hold that ends early is harmless. A new owner reads the record at the committed
 * offset and holds it itself.
 */
export class PartitionGate {
  private readonly holds = new Map<string, AbortController>();
  private readonly failures = new Map<string, number>();
  private readonly stopped = new AbortController();

  constructor(
    private readonly positions: Positions,
    private readonly clock: Clock,
    private readonly backoff: { initialMs: number; maxMs: number },
  ) {}

  /** Reads the partition again no earlier than `until` (epoch ms). */
  holdUntil(topic: string, partition: number, until: number): void {
    this.hold(topic, partition, Math.max(0, until - this.clock.now()));
  }

  /**
   * After a failed produce or commit: read the partition again after a back-off that doubles
   * with each failure in a row on it (never a hot loop), and returns it.
   */
  holdAfterFailure(topic: string, partition: number): number {
    const where = `${topic}:${partition}`;
    const failures = (this.failures.get(where) ?? 0) + 1;
    this.failures.set(where, failures);
    const waitMs = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** Math.min(failures - 1, 30));
    this.hold(topic, partition, waitMs);
    return waitMs;
  }

  /** A record on this partition went through: the next failure starts the back-off over. */
  succeeded(topic: string, partition: number): void {
    this.failures.delete(`${topic}:${partition}`);
  }

  /** Leaves the partition paused for good: the consumer is stopping. */
  park(topic: string, partition: number): void {
    this.positions.pause(topic, partition);
  }

  stop(): void {
    this.stopped.abort();
    this.positions.stop();
    for (const hold of this.holds.values()) hold.abort();
    this.holds.clear();
  }

  private hold(topic: string, partition: number, waitMs: number): void {
    if (this.stopped.signal.aborted) return;
    const where = `${topic}:${partition}`;
    this.holds.get(where)?.abort();
    const hold = new AbortController();
    this.holds.set(where, hold);
    const asOf = this.positions.current;
    this.positions.pause(topic, partition, asOf);
    this.clock.sleep(waitMs, hold.signal).then(
      () => {
        if (this.holds.get(where) === hold) this.holds.delete(where);
        // Dropped if the partition was assigned again meanwhile: it starts afresh, unpaused.
        this.positions.resume(topic, partition, asOf);
      },
      () => undefined,
    );
  }
}
