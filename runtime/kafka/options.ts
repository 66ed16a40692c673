import type { RetryPlan } from '../../policy/plan/types';
import type { Clock, Random } from '../clock';
import type { MeterLike } from '../metrics';
import type { AdminLike, ConsumedMessage, ConsumerLike, KafkaClient, ProducerLike } from './contract';
import type { KafkaRetryError } from './errors';
import type { Origin } from './headers';
import type { IgnoredMarkReason } from './source-progress';

export interface KafkaHandlerContext {
  /** This delivery's attempt, from 1. */
  attempt: number;
  maxAttempts: number;
  /** Where this delivery was read from (the source topic or a retry topic). */
  topic: string;
  partition: number;
  offset: string;
  /** The record's position on the source topic: stable along the chain, a natural idempotency key. */
  origin: Origin;
  /** True when the record waited behind an older record of its key (queued, or parked in the chain). */
  parked: boolean;
  /** Aborted when the runtime stops. */
  signal: AbortSignal;
}

export type KafkaHandler = (message: ConsumedMessage, context: KafkaHandlerContext) => Promise<void>;

export type KafkaRole = 'main' | 'retry';

export type KafkaEngine = 'per-record' | 'batched';

interface At {
  role: KafkaRole;
  topic: string;
  partition: number;
  offset: string;
}

/** What the runtime did, for logs and tests. Errors it recovered from come as `failed`. */
export type KafkaRetryEvent =
  | (At & {
      type: 'handled';
      attempt: number;
      outcome: 'success' | 'retry' | 'dead-letter' | 'requeued';
      /** The retry or dead-letter topic the copy went to. */
      destination?: string;
    })
  | (At & { type: 'parked'; destination: string; notBefore: number; behind: number })
  /** park-key: a source record waits in memory behind `behind`, the source offset of an older record of its key. */
  | (At & { type: 'queued'; behind: number })
  | (At & { type: 'waiting'; dueAt: number })
  /**
   * park-key: the main group's commit at `offset` carries `metadata` that is not this runtime's
   * mark for that offset (another consumer's, a mirrored commit, a damaged one): every record
   * from `offset` is handled again. Also written as a process warning (RETRY_TOPOLOGY_KAFKA_COMMIT_IGNORED).
   */
  | (At & { type: 'commit-ignored'; metadata: string; reason: IgnoredMarkReason })
  | (At & { type: 'failed'; error: KafkaRetryError; retryInMs?: number });

export interface KafkaRetryOptions {
  plan: RetryPlan;
  handler: KafkaHandler;
  /** A connected producer. With the Confluent client, configure it with acks -1 (its default). */
  producer: ProducerLike;
  /** park-key ordering only: reads the retry group's committed offsets and the log ends. */
  admin?: AdminLike;
  /**
   * park-key ordering only: makes the (unconnected) consumer the chain view reads the retry
   * topics with, in the group id it is given (fresh per process). Give it a short
   * `maxWaitTimeInMs`; with the Confluent client also `fromBeginning: true` and `autoCommit: false`.
   */
  viewConsumer?: (groupId: string) => ConsumerLike;
  /** Which client serves the KafkaJS API shape. Default 'kafkajs'. */
  client?: KafkaClient;
  clock?: Clock;
  random?: Random;
  meter?: MeterLike;
  /** Back-off after a failed produce, fault-hook or chain-view step, doubling per failure in a row. */
  failureBackoff?: { initialMs: number; maxMs: number };
  /** How long a chain-view snapshot may wait for its reader. */
  viewCatchUpTimeoutMs?: number;
  /**
   * park-key: how often the chain view is read again while a queued key waits on a record that
   * another process handles (this process's own commits release keys at once).
   */
  viewRefreshMs?: number;
  /** park-key: records queued in memory per source partition before a busy key's are parked instead. */
  maxQueuedPerPartition?: number;
  /** Where the main consumer starts when its group has no committed offset (KafkaJS `fromBeginning`). */
  fromBeginning?: boolean;
  /**
   * Partitions each consumer handles at once (with the per-record engine, records of one
   * partition are always one at a time). Default: as many as the consumer can be assigned, up to 16.
   */
  partitionsConsumedConcurrently?: number;
  /**
   * How records are read and carried out. 'batched' (the default): a fetched batch at a time,
   * its handlers side by side up to `concurrency`, its copies sent together and one commit per
   * batch (docs/kafka.md, "The batched engine"); a park-key plan runs through run(kafka), one
   * consumer per chain. 'per-record' (the earlier engine, to be removed): one record at a time
   * per partition, each with its own produce and commit; park-key through runMain and runRetry
   * with a chain view.
   */
  engine?: KafkaEngine;
  /**
   * The batched engine only: handler calls running at once per consumer (runMain and runRetry
   * each have their own), across its partitions and the records of a batch. Default 16.
   */
  concurrency?: number;
  /**
   * run(kafka) only: settings of the consumer the runtime makes, in the client's own names
   * (KafkaJS: `maxWaitTimeInMs`, `sessionTimeout`, `heartbeatInterval`, `rebalanceTimeout`; the
   * Confluent client takes the same names in its `kafkaJS` block). Default: a 500 ms fetch wait.
   */
  consumerSettings?: Record<string, unknown>;
  onEvent?: (event: KafkaRetryEvent) => void;
  /** For fault tests: runs after a copy is acked and before the offset is committed. */
  afterCopyProduced?: (at: {
    topic: string;
    partition: number;
    offset: string;
    destination: string;
  }) => Promise<void> | void;
}

export const KAFKA_DEFAULTS = {
  client: 'kafkajs' as KafkaClient,
  /**
   * Enough handler calls at once to hide a downstream service's tens of milliseconds, few
   * enough not to flood it; a fetched batch is often hundreds of records.
   */
  concurrency: 16,
  /**
   * A send that failed has already been retried by the client (KafkaJS: 5 retries from 300 ms),
   * so the broker is in trouble: start at 500 ms and stay under a minute between tries.
   */
  failureBackoff: { initialMs: 500, maxMs: 30_000 },
  /** The reader tails low-volume topics; 15 s behind means it is stuck, not slow. */
  viewCatchUpTimeoutMs: 15_000,
  /** Releases that wait on another process cost at most this much more than local ones. */
  viewRefreshMs: 200,
  /**
   * A queued record is held in memory until its key's chain empties; 1,000 per partition bounds
   * that memory. Past it (or past what the commit metadata can list) a busy key's records are
   * parked into the chain as copies instead, as before queues existed.
   */
  maxQueuedPerPartition: 1_000,
  fromBeginning: false,
  /** Per-partition order is kept by the clients at any concurrency; more only helps a busy consumer. */
  maxPartitionsConsumedConcurrently: 16,
  /** A held partition resumes on the next fetch: a short fetch wait keeps holds to their length. */
  chainConsumer: { maxWaitTimeInMs: 500 } as Record<string, unknown>,
};
