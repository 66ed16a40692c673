import { HandOver } from '../dead-letters/queue';
import type { ConsumedMessage, EachMessagePayloadLike, KafkaClient, TopicPartitions } from './contract';

/** A consumer as the dead-letter commands use it: the KafkaJS shape, with offset metadata on commits. */
export interface DeadLetterConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(subscription: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  run(config: {
    eachMessage: (payload: EachMessagePayloadLike) => Promise<void>;
    autoCommit?: boolean;
    partitionsConsumedConcurrently?: number;
  }): Promise<void>;
  commitOffsets(
    offsets: Array<{ topic: string; partition: number; offset: string; metadata?: string | null }>,
  ): Promise<void>;
  pause(topics: TopicPartitions[]): void;
  /** KafkaJS's instrumentation events; the Confluent client has none. */
  on?(event: string, listener: (event: unknown) => void): unknown;
  readonly events?: { CRASH?: string; GROUP_JOIN: string };
}

export interface PassItem {
  partition: number;
  message: ConsumedMessage;
  /** Lets the consumer go on to the partition's next record (claim passes wait for it). */
  settle(): void;
}

/**
 * One read of the dead-letter topic up to the ends taken at its start (records that arrive later
 * wait for the next pass). A partition is finished once its last record before that end was read.
 * Records are handed over one at a time per partition when `waitForSettle` (a claim: each waits
 * until it is replayed, purged or passed over); a browse reads ahead into a bounded queue.
 *
 * If a partition goes silent before its end (its last offsets hold no readable record, such as a
 * transaction marker), the pass ends after `idleMs` without a record.
 */
export class DeadLetterPass {
  private readonly queue: HandOver<PassItem>;
  private readonly open = new Set<number>();
  private readonly pending = new Set<() => void>();
  private idleTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private joining = false;

  constructor(
    private readonly input: {
      consumer: DeadLetterConsumer;
      topic: string;
      client: KafkaClient;
      /** Per partition: the first offset to read and the end (exclusive) taken at the start. */
      ranges: Map<number, { from: number; end: number }>;
      waitForSettle: boolean;
      idleMs: number;
      /** Read, but not handed over (Kafka claim: records already done). */
      skip?: (partition: number, offset: number) => boolean;
    },
  ) {
    this.queue = new HandOver(input.waitForSettle ? 1 : 500);
    for (const [partition, range] of input.ranges) if (range.from < range.end) this.open.add(partition);
  }

  async start(): Promise<void> {
    const { consumer, topic, client } = this.input;
    if (this.open.size === 0) {
      this.queue.end();
      return;
    }
    // The Confluent client has `on` and `events` too, but they throw "Not implemented" (1.10.1).
    const events = client === 'kafkajs' && consumer.on ? consumer.events : undefined;
    if (events && consumer.on) {
      consumer.on(events.CRASH ?? 'consumer.crash', (event) => {
        const error = (event as { payload?: { error?: unknown } }).payload?.error ?? event;
        this.queue.fail(error);
      });
      consumer.on(events.GROUP_JOIN, () => this.armIdle());
    }
    this.joining = true;
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], ...(client === 'kafkajs' ? { fromBeginning: true } : {}) });
    await consumer.run({
      ...(client === 'kafkajs' ? { autoCommit: false } : {}),
      partitionsConsumedConcurrently: 1,
      eachMessage: (payload) => this.each(payload),
    });
    // Without join events (the Confluent client) the silence is counted from now, twice as long,
    // so a slow first join is not taken for the end.
    if (!events) this.armIdle(this.input.idleMs * 2);
  }

  /** Whether the consumer was asked to connect, so its group may exist (an empty topic reads nothing). */
  get triedToJoin(): boolean {
    return this.joining;
  }

  next(): Promise<PassItem | undefined> {
    return this.queue.pull();
  }

  /** Ends the pass: every waiting record is let go unsettled, the consumer disconnects. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.idleTimer);
    this.queue.end();
    for (const release of [...this.pending]) release();
    await this.input.consumer.disconnect().catch(() => undefined);
  }

  private armIdle(ms = this.input.idleMs): void {
    clearTimeout(this.idleTimer);
    if (this.stopped || this.open.size === 0) return;
    this.idleTimer = setTimeout(() => {
      // Silence while the command still holds a record, or has some to read, is the command's.
      if (this.pending.size > 0 || this.queue.size > 0) this.armIdle();
      else this.queue.end();
    }, ms);
    this.idleTimer.unref?.();
  }

  private finish(partition: number): void {
    if (!this.open.delete(partition)) return;
    this.input.consumer.pause([{ topic: this.input.topic, partitions: [partition] }]);
    if (this.open.size === 0) {
      clearTimeout(this.idleTimer);
      this.queue.end();
    }
  }

  private async each({ partition, message }: EachMessagePayloadLike): Promise<void> {
    if (this.stopped || !this.open.has(partition)) return;
    clearTimeout(this.idleTimer);
    const range = this.input.ranges.get(partition);
    const offset = Number(message.offset);
    if (!range || offset >= range.end) {
      this.finish(partition);
      return;
    }
    const last = offset + 1 >= range.end;
    if (offset < range.from || this.input.skip?.(partition, offset)) {
      if (last) this.finish(partition);
      return;
    }
    let settled!: () => void;
    const done = new Promise<void>((resolve) => {
      settled = resolve;
    });
    const release = () => {
      this.pending.delete(release);
      settled();
    };
    this.pending.add(release);
    await this.queue.push({ partition, message, settle: release });
    if (this.input.waitForSettle) await done;
    else release();
    if (last) this.finish(partition);
    this.armIdle();
  }
}

/**
 * A pass's records by partition, then offset, each once. A pass hands the partitions over
 * interleaved as their fetches come back, differently on every run; this order is the log's own.
 * A record can come twice: a rebalance makes a group that never commits read a partition again
 * from its start.
 */
export function inLogOrder(items: readonly PassItem[]): PassItem[] {
  const sorted = [...items].sort(
    (a, b) => a.partition - b.partition || Number(a.message.offset) - Number(b.message.offset),
  );
  return sorted.filter((item, index) => {
    const before = sorted[index - 1];
    return !before || before.partition !== item.partition || before.message.offset !== item.message.offset;
  });
}
