import type {
  Batch,
  Consumer,
  ConsumerRunConfig,
  ConsumerSubscribeTopics,
  EachBatchPayload,
  IHeaders,
  KafkaMessage,
  Producer,
  ProducerRecord,
  RecordMetadata,
  TopicPartitionOffset,
  TopicPartitionOffsetAndMetadata,
} from 'kafkajs';
import { flush } from '../../support/fake-clock';

/**
 * Fakes for the batched engine, typed against kafkajs's own types: the consumer is the part of
 * KafkaJS's `Consumer` the runtime touches, the payloads it hands over are KafkaJS
 * `EachBatchPayload`s, the producer is KafkaJS's `send`. So what the engine gets here is what
 * KafkaJS gives it, checked by the compiler.
 */

type ConsumerPart = Pick<
  Consumer,
  'connect' | 'disconnect' | 'subscribe' | 'run' | 'commitOffsets' | 'seek' | 'pause' | 'resume'
>;

export interface FakeRecord {
  key?: string | null;
  value?: string;
  timestamp?: string;
  headers?: IHeaders;
}

/**
 * A consumer that records what the runtime asks of it (commits, seeks, pauses, resumes); the test
 * hands it batches. `committed` is what the group's commit would be on the broker.
 */
export class BatchConsumer implements ConsumerPart {
  readonly log: string[] = [];
  readonly committed = new Map<string, string>();
  config: ConsumerRunConfig | undefined;
  failCommits = 0;
  failHeartbeats = 0;
  heartbeats = 0;

  async connect() {}
  async disconnect() {}
  async subscribe(subscription: ConsumerSubscribeTopics) {
    this.log.push(`subscribe ${subscription.topics.join(',')}`);
  }
  async run(config?: ConsumerRunConfig) {
    this.config = config;
  }
  async commitOffsets(offsets: TopicPartitionOffsetAndMetadata[]) {
    if (this.failCommits-- > 0) throw new Error('REBALANCE_IN_PROGRESS (simulated)');
    for (const o of offsets) {
      this.log.push(`commit ${o.topic}[${o.partition}]@${o.offset}`);
      this.committed.set(`${o.topic}[${o.partition}]`, o.offset);
    }
  }
  seek(p: TopicPartitionOffset) {
    this.log.push(`seek ${p.topic}[${p.partition}]@${p.offset}`);
  }
  pause(topics: Array<{ topic: string; partitions?: number[] }>) {
    for (const t of topics) this.log.push(`pause ${t.topic}[${t.partitions?.join(',')}]`);
  }
  resume(topics: Array<{ topic: string; partitions?: number[] }>) {
    for (const t of topics) this.log.push(`resume ${t.topic}[${t.partitions?.join(',')}]`);
  }

  /** KafkaJS's instrumentation events: GROUP_JOIN tells the runtime of a new assignment. */
  readonly events = { GROUP_JOIN: 'consumer.group_join', CRASH: 'consumer.crash' };
  private readonly listeners = new Map<string, Array<(event: unknown) => void>>();
  on(event: string, listener: (event: unknown) => void) {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return () => undefined;
  }
  protected emit(event: string, payload: unknown) {
    for (const listener of this.listeners.get(event) ?? []) listener({ payload });
  }
  /** The group assigns this member `memberAssignment` (KafkaJS's GROUP_JOIN). */
  join(memberAssignment: Record<string, number[]>) {
    this.emit(this.events.GROUP_JOIN, { memberAssignment });
  }

  /** Commits, in order. */
  commits(): string[] {
    return this.log.filter((line) => line.startsWith('commit '));
  }

  /**
   * Hands over a batch of `topic`[`partition`] from offset `from`, one record per entry, and
   * resolves once the engine is done with it, with the offsets it resolved.
   */
  async deliver(topic: string, partition: number, from: number, records: FakeRecord[]): Promise<string[]> {
    const eachBatch = this.config?.eachBatch;
    if (!eachBatch) throw new Error('run was not called with eachBatch');
    const resolved: string[] = [];
    const messages: KafkaMessage[] = records.map((record, index) => ({
      key: record.key === null ? null : Buffer.from(record.key ?? 'k'),
      value: Buffer.from(record.value ?? `v${from + index}`),
      timestamp: record.timestamp ?? '0',
      attributes: 0,
      offset: String(from + index),
      headers: record.headers ?? {},
    }));
    const last = String(from + records.length - 1);
    const batch: Batch = {
      topic,
      partition,
      highWatermark: String(from + records.length),
      messages,
      isEmpty: () => messages.length === 0,
      firstOffset: () => messages[0]?.offset ?? null,
      lastOffset: () => last,
      offsetLag: () => '0',
      offsetLagLow: () => '0',
    };
    const payload: EachBatchPayload = {
      batch,
      resolveOffset: (offset) => void resolved.push(offset),
      heartbeat: async () => {
        this.heartbeats++;
        if (this.failHeartbeats-- > 0) throw new Error('REBALANCE_IN_PROGRESS (simulated)');
      },
      pause: () => () => undefined,
      commitOffsetsIfNecessary: async () => undefined,
      uncommittedOffsets: () => ({ topics: [] }),
      isRunning: () => true,
      isStale: () => false,
    };
    await eachBatch(payload);
    await flush();
    return resolved;
  }
}

/** A send the test acknowledges (or refuses) by hand. */
interface Held {
  record: ProducerRecord;
  ack: () => void;
  refuse: (error: Error) => void;
}

/**
 * KafkaJS's `send`: acknowledged at once, refused `failSends` times first, or, with `hold`, kept
 * until the test acknowledges it (`held`).
 */
export class BatchProducer implements Pick<Producer, 'send'> {
  readonly sent: ProducerRecord[] = [];
  readonly held: Held[] = [];
  failSends = 0;
  hold = false;
  /** A topic's max.message.bytes, by value length: a request holding a larger record is refused for good. */
  readonly maxValueBytes = new Map<string, number>();
  constructor(private readonly log: string[]) {}

  async send(record: ProducerRecord): Promise<RecordMetadata[]> {
    const line = `send ${record.topic}[${record.messages.map((m) => m.partition).join(',')}] ×${record.messages.length}`;
    if (this.failSends-- > 0) {
      this.log.push(`${line} refused`);
      throw new Error('NOT_ENOUGH_REPLICAS (simulated)');
    }
    const limit = this.maxValueBytes.get(record.topic);
    if (limit !== undefined && record.messages.some((m) => (m.value?.length ?? 0) > limit)) {
      this.log.push(`${line} too large`);
      // As KafkaJS reports it: the protocol's error, not retriable.
      throw Object.assign(
        new Error('The request included a message larger than the max message size the server will accept'),
        {
          name: 'KafkaJSProtocolError',
          type: 'MESSAGE_TOO_LARGE',
          code: 10,
          retriable: false,
        },
      );
    }
    if (this.hold) {
      this.log.push(`${line} sent`);
      await new Promise<void>((ack, refuse) => this.held.push({ record, ack, refuse }));
    }
    this.sent.push(record);
    this.log.push(`${line} acked`);
    return [];
  }

  /** Every copy acknowledged, in the order acknowledged. */
  get copies() {
    return this.sent.flatMap((record) =>
      record.messages.map((message) => ({ topic: record.topic, message })),
    );
  }
}
