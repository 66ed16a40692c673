import type { RetryPlan } from '../../policy/plan/types';
import type { Clock, Random } from '../clock';
import type { MeterLike } from '../metrics';
import type { AdminLike, ConsumedMessage, KafkaClient, ProducerLike } from './contract';
import type { KafkaRetryError } from './errors';
import type { Origin } from './headers';

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
  /** True when the record waited behind an older record of its key (parked in the chain). */
  parked: boolean;
  /** Aborted when the runtime stops. */
  signal: AbortSignal;
}

export type KafkaHandler = (message: ConsumedMessage, context: KafkaHandlerContext) => Promise<void>;

export type KafkaRole = 'main' | 'retry';

/** Where an event happened: the consumer's role and the record's topic, partition and offset. */
export interface KafkaEventPosition {
  role: KafkaRole;
  topic: string;
  partition: number;
  offset: string;
}

/** What the runtime did, for logs and tests. Errors it recovered from come as `failed`. */
export type KafkaRetryEvent =
  | (KafkaEventPosition & {
      type: 'handled';
      attempt: number;
      outcome: 'success' | 'retry' | 'dead-letter' | 'requeued';
      /** The retry or dead-letter topic the copy went to. */
      destination?: string;
    })
  /** park-key: copied behind `behind`, the source offset of an older record of its key in the chain. */
  | (KafkaEventPosition & { type: 'parked'; destination: string; notBefore: number; behind: number })
  | (KafkaEventPosition & { type: 'waiting'; dueAt: number })
  | (KafkaEventPosition & { type: 'failed'; error: KafkaRetryError; retryInMs?: number });

export interface KafkaRetryOptions {
  plan: RetryPlan;
  handler: KafkaHandler;
  /** A connected producer. With the Confluent client, configure it with acks -1 (its default). */
  producer: ProducerLike;
  /**
   * Called when the producer can never send again (`producer-broken`: KafkaJS's idempotent
   * producer after a broker failed mid-request, librdkafka's fatal errors): return a new,
   * connected producer, and the runtime sends the copies again with it (disconnect the broken
   * one here). Without it the runtime stops, and `closed` rejects with the error.
   */
  replaceProducer?: (broken: ProducerLike, error: KafkaRetryError) => Promise<ProducerLike>;
  /** park-key only: reads the retry partitions' commits and log ends after each assignment. */
  admin?: AdminLike;
  /** Which client serves the KafkaJS API shape. Default 'kafkajs'. */
  client?: KafkaClient;
  clock?: Clock;
  random?: Random;
  meter?: MeterLike;
  /** Back-off after a failed produce, fault-hook or chain read, doubling per failure in a row. */
  failureBackoff?: { initialMs: number; maxMs: number };
  /** Where the main consumer starts when its group has no committed offset (KafkaJS `fromBeginning`). */
  fromBeginning?: boolean;
  /** Partitions each consumer handles at once. Default: as many as it can be assigned, up to 16. */
  partitionsConsumedConcurrently?: number;
  /**
   * Handler calls running at once per consumer, across its partitions and the records of a
   * batch (records of one key one at a time with per-key order). Default 16.
   */
  concurrency?: number;
  /**
   * run(kafka) only: settings of the consumer the runtime makes, in the client's own names
   * (KafkaJS: `maxWaitTimeInMs`, `sessionTimeout`, `heartbeatInterval`, `rebalanceTimeout`; the
   * Confluent client takes the same names in its `kafkaJS` block). Default: a 500 ms fetch wait.
   * Settings the runtime depends on are refused with `invalid-option`: `groupId`, `autoCommit`
   * (and its interval and threshold), `partitionAssigners`, `rebalance_cb` and `fromBeginning`.
   */
  consumerSettings?: Record<string, unknown>;
  /**
   * How long stop() waits for the batches under way. Their handlers' stop signal aborts at once;
   * when this passes, records still running are left uncommitted (the partition's next owner runs
   * them again, at the same attempt), nothing more is copied or committed, and the consumers are
   * disconnected. Without it a stop could wait for a copy's send, up to librdkafka's
   * delivery.timeout.ms (300 s). Default 10 s.
   */
  stopTimeoutMs?: number;
  onEvent?: (event: KafkaRetryEvent) => void;
  /**
   * @deprecated A hook for this package's own fault tests, not an extension point; kept until
   * 0.2.0. To follow each copy, use `onEvent` (`handled`, with its `destination`).
   */
  afterCopyProduced?: (at: {
    topic: string;
    partition: number;
    offset: string;
    destination: string;
  }) => Promise<void> | void;
}

/**
 * Hooks for the package's own fault tests, taken by createKafkaRetryWithHooks (kafka-retry.ts)
 * and not by the public entry point.
 */
export interface KafkaTestHooks {
  /**
   * Runs after a copy is acked and before the offset is committed. A throw stands for a process
   * that died there: the record is not committed (`step-failed`). Typed by the deprecated public
   * option until that goes in 0.2.0; this hook then gets the type written out.
   */
  afterCopyProduced?: KafkaRetryOptions['afterCopyProduced'];
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
  fromBeginning: false,
  /** Per-partition order is kept by the clients at any concurrency; more only helps a busy consumer. */
  maxPartitionsConsumedConcurrently: 16,
  /** A held partition resumes on the next fetch: a short fetch wait keeps holds to their length. */
  chainConsumer: { maxWaitTimeInMs: 500 } as Record<string, unknown>,
};
