import type { IssueCode } from './codes';

/**
 * The normalised policy: every default applied, every duration in milliseconds with the unit in
 * its name. Rules and derivePlan read this; nothing downstream reads the raw document.
 */

export type Jitter = 'none' | 'full' | 'equal';
export type RabbitMode = 'ttl-queues' | 'quorum-delayed-retry' | 'delivery-time';
export type KafkaAcks = -1 | 1 | 0;
export type Environment = 'production' | 'staging' | 'development';

export interface ErrorMatch {
  errorNames: string[];
  errorCodes: string[];
  httpStatuses: number[];
}

export interface Classification {
  presets: Array<'http-transient' | 'network-transient'>;
  transient: ErrorMatch;
  permanent: ErrorMatch;
  unknown: 'permanent' | 'transient';
}

export type Backoff =
  | { type: 'exponential'; initialMs: number; multiplier: number; maxMs?: number }
  | { type: 'list'; delaysMs: number[] };

export interface RabbitTarget {
  exchange: string;
  exchangeType: 'topic' | 'direct' | 'fanout' | 'headers';
  declareExchange: boolean;
  routingKey: string;
  queue: string;
  mode: RabbitMode;
  brokerVersion: string;
  vhost: string;
  /** Left out: the planner picks it from the mode (see RABBIT_DEFAULT_DELIVERY_LIMIT). */
  deliveryLimit?: number;
  waitQueueMaxLength: number | 'unbounded';
  overflow: 'reject-publish' | 'drop-head';
  deadLetterStrategy: 'at-least-once' | 'at-most-once';
  consumerTimeoutMs: number;
  policyPriority: number;
  /** x-quorum-initial-group-size of every queue: fixed when a queue is first declared. */
  quorumReplicas: number;
  /** Nodes in the cluster, when the policy states it. */
  clusterSize?: number;
}

export interface KafkaTarget {
  topic: string;
  consumerGroup: string;
  partitions: number;
  declareTopic: boolean;
  replicationFactor: number;
  minInSyncReplicas: number;
  /** Producer acks for the runtime's copies: -1 is "all". */
  acks: KafkaAcks;
  /** Brokers in the cluster, when the policy states it. */
  clusterSize?: number;
  maxPollIntervalMs: number;
  retryRetentionMs: number;
  ordering: 'park-key' | 'none';
}

/** What a Service Bus target holds for a queue and for a subscription alike. */
export interface ServiceBusCommon {
  lockDurationMs: number;
  lockRenewalMs: number;
  deliveryLimit: number;
  forwardDeadLettersTo?: string;
}

export type ServiceBusTarget =
  | ({ entity: 'queue'; queue: string; duplicateDetectionMs?: number } & ServiceBusCommon)
  | ({ entity: 'subscription'; topic: string; subscription: string } & ServiceBusCommon);

export interface Policy {
  name: string;
  description?: string;
  owner?: string;
  /** Left out: not marked, so the replication checks stay warnings. */
  environment?: Environment;
  consumer: string;
  maxAttempts: number;
  immediate: { retries: number; delayMs: number };
  backoff: Backoff;
  jitter: Jitter;
  classify: Classification;
  deadLetter: { name?: string; retentionMs: number };
  messageTtlMs?: number;
  deadlineMs?: number;
  innerLayers: Array<{ name: string; attempts: number }>;
  amplificationBudget: number;
  ordering: 'none' | 'per-key';
  idempotency: { idempotent: boolean; key?: string };
  /** Warnings reviewed and accepted (spec.acknowledge): each turns into a note with its reason. */
  acknowledge: Array<{ code: IssueCode; reason: string }>;
  targets: {
    rabbitmq?: RabbitTarget;
    kafka?: KafkaTarget;
    serviceBus?: ServiceBusTarget;
  };
}
