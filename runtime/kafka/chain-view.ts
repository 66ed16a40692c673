import type { Clock } from '../clock';
import { HEADERS } from '../dead-letter';
import { ChainIndex } from './chain-index';
import type { AdminLike, ConsumedMessage, ConsumerLike, KafkaClient } from './contract';
import { KafkaRetryError } from './errors';
import { headerText, KAFKA_HEADERS } from './headers';

export interface ChainViewOptions {
  admin: AdminLike;
  /** A consumer in a group of its own (a fresh id per process): it only reads, never commits. */
  consumer: ConsumerLike;
  /** The retry consumers' group: its committed offsets say where the chain starts. */
  retryGroup: string;
  retryTopics: string[];
  client: KafkaClient;
  clock: Clock;
  /** How long a snapshot may wait for the reader to catch up before it gives up. */
  catchUpTimeoutMs: number;
}

/** Copies are small (a key, a few numbers): 10,000 of them are a few MB. */
const MIN_PRUNE_AT = 10_000;

interface Need {
  topic: string;
  partition: number;
  floor: number;
  high: number;
}

function safeNumber(text: string | undefined): number | undefined {
  const value = text !== undefined && /^\d{1,16}$/.test(text.trim()) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * The chain's state as the broker holds it, read by every process that needs it: a reader tails
 * the retry topics into a ChainIndex, and a snapshot settles which copies are still in the chain.
 *
 * A snapshot fetches the retry group's committed offsets first and the log ends second, then
 * waits until the reader has read every partition from its committed offset to that end. A
 * move is produce-then-commit, so a record in the chain when the committed offsets were read
 * has a copy below the end read afterwards: the snapshot misses nothing that was in the chain
 * when it began. Between snapshots the index only grows (copies read, copies this process
 * produced), so a stale view may show a key as in the chain when it has left, never the reverse.
 */
export class ChainView {
  readonly index = new ChainIndex();
  /**
   * Past this many copies the next source record takes a snapshot first, which drops every copy
   * that has left the chain: 10,000, or twice what the last snapshot kept. Memory stays within
   * twice the chain's size, and a chain larger than 10,000 copies (a long outage) costs one
   * snapshot per that many new copies, not one per source record.
   */
  private pruneAt = MIN_PRUNE_AT;
  private started = 0;
  private running: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;
  private progress: Array<() => void> = [];
  private stopping = new AbortController();

  constructor(private readonly options: ChainViewOptions) {}

  async start(): Promise<void> {
    const { consumer, retryTopics, client } = this.options;
    await consumer.connect();
    await consumer.subscribe({
      topics: retryTopics,
      ...(client === 'kafkajs' ? { fromBeginning: true } : {}),
    });
    await consumer.run({
      ...(client === 'kafkajs' ? { autoCommit: false } : {}),
      eachMessage: async ({ topic, partition, message }) => this.read(topic, partition, message),
    });
    // Start where the chain starts, not at the start of the retention (days of old copies). A
    // failure here only costs time: the reader then reads from the start, and snapshots wait.
    const needs = await this.needs().catch(() => []);
    for (const need of needs) this.seek(need);
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.options.consumer.disconnect();
  }

  /** Whether the index has grown enough since the last snapshot that the next should prune it. */
  get oversized(): boolean {
    return this.index.size > this.pruneAt;
  }

  /** The round the next snapshot will have; a copy acked now is covered once that round completes. */
  get nextRound(): number {
    return this.started + 1;
  }

  /** Resolves once a snapshot that began after this call is complete. */
  fresh(): Promise<void> {
    if (this.queued) return this.queued;
    const queued = this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        this.running = this.take();
        return this.running;
      });
    this.queued = queued;
    return queued;
  }

  private read(topic: string, partition: number, message: ConsumedMessage): void {
    const offset = Number(message.offset);
    if (message.key) {
      const headers = message.headers;
      this.index.add({
        topic,
        partition,
        offset,
        keyId: message.key.toString('base64'),
        sequence: safeNumber(headerText(headers, KAFKA_HEADERS.originalOffset)),
        notBefore: safeNumber(headerText(headers, KAFKA_HEADERS.notBefore)),
        firstFailureAt: safeNumber(headerText(headers, HEADERS.firstFailureAt)),
        producedAt: Number(message.timestamp),
      });
    }
    this.index.cover(topic, partition, offset);
    const waiting = this.progress;
    this.progress = [];
    for (const wake of waiting) wake();
  }

  private async needs(): Promise<Need[]> {
    const { admin, retryGroup, retryTopics } = this.options;
    // Committed offsets first, log ends second: see the class comment for why the order matters.
    const committed = await admin.fetchOffsets({ groupId: retryGroup, topics: retryTopics });
    const ends = await Promise.all(retryTopics.map((topic) => admin.fetchTopicOffsets(topic)));
    const needs: Need[] = [];
    retryTopics.forEach((topic, index) => {
      for (const end of ends[index] ?? []) {
        const low = Number(end.low);
        const mark = committed
          .find((each) => each.topic === topic)
          ?.partitions.find((each) => each.partition === end.partition);
        const offset = Number(mark?.offset ?? -1);
        needs.push({ topic, partition: end.partition, floor: Math.max(offset, low), high: Number(end.high) });
      }
    });
    return needs;
  }

  private seek(need: Need): void {
    this.options.consumer.seek({ topic: need.topic, partition: need.partition, offset: String(need.floor) });
  }

  private async take(): Promise<void> {
    const round = ++this.started;
    let needs: Need[];
    try {
      needs = await this.needs();
    } catch (cause) {
      throw new KafkaRetryError('chain-view-failed', 'reading committed offsets or log ends failed', {
        cause,
      });
    }
    const caughtUp = () => needs.every((n) => this.index.covered(n.topic, n.partition, n.floor, n.high));
    const deadline = this.options.clock.now() + this.options.catchUpTimeoutMs;
    while (!caughtUp()) {
      const left = deadline - this.options.clock.now();
      if (left <= 0 || this.stopping.signal.aborted) {
        // A reader that started elsewhere (a seek lost in a rebalance) is sent back to the chain.
        for (const need of needs)
          if (!this.index.covered(need.topic, need.partition, need.floor, need.high)) this.seek(need);
        throw new KafkaRetryError(
          'chain-view-failed',
          `the chain view did not catch up within ${this.options.catchUpTimeoutMs} ms`,
        );
      }
      await this.nextProgress(left);
    }
    for (const need of needs) this.index.setFloor(need.topic, need.partition, need.floor);
    this.index.settleLocal(round);
    this.pruneAt = Math.max(MIN_PRUNE_AT, 2 * this.index.size);
  }

  private nextProgress(timeoutMs: number): Promise<void> {
    const timer = new AbortController();
    const progressed = new Promise<void>((resolve) => this.progress.push(resolve));
    const timedOut = this.options.clock.sleep(timeoutMs, timer.signal).catch(() => undefined);
    return Promise.race([progressed, timedOut]).finally(() => timer.abort());
  }
}
