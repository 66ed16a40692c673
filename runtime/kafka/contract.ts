/**
 * The part of the KafkaJS API shape the adapter touches. Both `kafkajs` (2.2.4, tested) and
 * `@confluentinc/kafka-javascript`'s `KafkaJS` namespace serve this shape, so the adapter is typed
 * against these structural interfaces and never imports either package at run time.
 *
 * The two clients differ in where three settings go (`client` below): KafkaJS takes `acks` per
 * send, `autoCommit` per run and `fromBeginning` per subscribe; the Confluent client refuses them
 * there and wants them in the producer's or consumer's own config.
 */

export type KafkaClient = 'kafkajs' | 'confluent';

export type HeaderValue = Buffer | string | Array<Buffer | string> | undefined;
export type KafkaHeaders = Record<string, HeaderValue>;

/** A consumed record as both clients hand it over. */
export interface ConsumedMessage {
  key: Buffer | null;
  value: Buffer | null;
  /** Epoch milliseconds as text (the record's CreateTime unless the topic says LogAppendTime). */
  timestamp: string;
  offset: string;
  headers?: KafkaHeaders;
}

export interface EachMessagePayloadLike {
  topic: string;
  partition: number;
  message: ConsumedMessage;
}

/**
 * One fetched batch of one topic-partition, as both clients hand it to `eachBatch` (the batched
 * engine). KafkaJS's `EachBatchPayload` and the Confluent client's are wider; this is what the
 * engine touches.
 */
export interface EachBatchPayloadLike {
  batch: { topic: string; partition: number; messages: ConsumedMessage[] };
  /** Marks the records up to `offset` read: the client's next fetch of the partition starts after it. */
  resolveOffset(offset: string): void;
  /** KafkaJS: heartbeats when one is due and throws while the group rebalances (Confluent: a no-op). */
  heartbeat(): Promise<void>;
  /** True once a seek (or, Confluent, a rebalance) made the rest of the batch outdated. */
  isStale(): boolean;
}

/** What the runtime passes to `run`: one of the two handlers, and the client's run settings. */
export interface RunConfigLike {
  eachMessage?: (payload: EachMessagePayloadLike) => Promise<void>;
  eachBatch?: (payload: EachBatchPayloadLike) => Promise<void>;
  /** False: the batched engine says itself which records it read (resolveOffset). */
  eachBatchAutoResolve?: boolean;
  autoCommit?: boolean;
  partitionsConsumedConcurrently?: number;
}

export interface TopicPartitions {
  topic: string;
  partitions?: number[];
}

export interface ConsumerLike {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(subscription: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  run(config: RunConfigLike): Promise<void>;
  /** `metadata` travels with the commit (park-key: which records past the offset are done). */
  commitOffsets(
    offsets: Array<{ topic: string; partition: number; offset: string; metadata?: string | null }>,
  ): Promise<void>;
  seek(position: { topic: string; partition: number; offset: string }): void;
  pause(topics: TopicPartitions[]): void;
  resume(topics: TopicPartitions[]): void;
  /** KafkaJS's instrumentation events, to notice a new partition assignment (the Confluent client's throw). */
  on?(event: string, listener: (event: unknown) => void): unknown;
  readonly events?: { GROUP_JOIN: string; CRASH?: string };
  /** The Confluent client's current assignment (KafkaJS has none; it reports GROUP_JOIN instead). */
  assignment?(): Array<{ topic: string; partition: number }>;
}

/**
 * What makes consumers: KafkaJS's `Kafka`, or the Confluent client's `KafkaJS.Kafka`. The config
 * is the client's own (the runtime writes it per client).
 */
export interface KafkaLike {
  consumer(config: object): ConsumerLike;
}

export interface OutgoingMessage {
  key: Buffer | null;
  value: Buffer | null;
  partition: number;
  headers: Record<string, Buffer | string | Array<Buffer | string>>;
  /** Epoch milliseconds as text; the client sets the send time when it is missing. */
  timestamp?: string;
}

/** What a send resolves to, per partition: KafkaJS fills `baseOffset`, the Confluent client `offset`. */
export interface RecordMetadataLike {
  topicName: string;
  partition: number;
  baseOffset?: string;
  offset?: string;
}

export interface ProducerLike {
  send(record: {
    topic: string;
    messages: OutgoingMessage[];
    acks?: number;
  }): Promise<RecordMetadataLike[] | undefined>;
}

export interface AdminLike {
  listTopics(): Promise<string[]>;
  createTopics(options: {
    topics: Array<{
      topic: string;
      numPartitions: number;
      replicationFactor: number;
      configEntries: Array<{ name: string; value: string }>;
    }>;
    waitForLeaders?: boolean;
  }): Promise<boolean>;
  /** A group's committed offsets; "-1" where it has none. */
  fetchOffsets(options: { groupId: string; topics: string[] }): Promise<
    Array<{
      topic: string;
      partitions: Array<{ partition: number; offset: string; metadata?: string | null }>;
    }>
  >;
  /**
   * Per partition: `high` is the end of the log (next offset), `low` its first retained offset.
   * Also how partitions are counted: the clients' fetchTopicMetadata shapes differ.
   */
  fetchTopicOffsets(topic: string): Promise<Array<{ partition: number; high: string; low: string }>>;
}
