import type { Issue } from '../issues';
import type { Environment, Jitter, KafkaAcks, RabbitMode } from '../types';

/**
 * The plan: plain JSON derived from one policy. Components, the runtime and the CLI read this and
 * nothing else, so one fact (how long wait queue 2 holds a message, where it returns it) lives in
 * exactly one place. No functions, no clients, no clock: it can be printed, diffed and snapshotted.
 */

export const PLAN_VERSION = 1;

/** Inclusive range of milliseconds. */
export interface RangeMs {
  min: number;
  max: number;
}

/** How a resource's messages are replicated, as the plan states it and the readback checks it. */
export interface Replication {
  /** Copies of each message the broker keeps: quorum queue members, Kafka replicas. */
  replicas: number;
  /** Copies that hold a message when the broker confirms it (a publisher confirm, a Kafka ack). */
  confirmedOn: number;
  /** Nodes that may fail at once without losing a confirmed message. */
  survivesDown: number;
  /** Nodes that may be down while new messages are still confirmed. */
  writesWithDown: number;
}

/** One delay level: the wait before attempt `level + 1`. */
export interface Level {
  level: number;
  /** The policy's wait before jitter. */
  delayMs: number;
  /** The wait this target really applies, jitter included. */
  waitMs: RangeMs;
  /** Where the message waits on this target (queue, topic, or the entity it is scheduled on). */
  destination: string;
}

/** One attempt as a reviewer reads it: when it can happen and where the message comes from. */
export interface Stage {
  attempt: number;
  /** The wait before this attempt (zero for attempt 1). */
  waitMs: RangeMs;
  /** Time from the first delivery to this attempt, in-memory retries included. */
  windowMs: RangeMs;
  /** Where the message waited before this attempt ("" for attempt 1). */
  via: string;
}

export interface DeliveryRules {
  maxAttempts: number;
  immediate: { retries: number; delayMs: number; waitMs: RangeMs };
  jitter: Jitter;
  /** Whether this target can apply jitter to delayed retries at all. */
  jitterApplied: boolean;
  levels: Level[];
  stages: Stage[];
  retryWindowMs: RangeMs;
  deadLetter: string;
}

export interface RabbitQueueSpec {
  name: string;
  role: 'main' | 'wait' | 'dead-letter';
  level?: number;
  delayMs?: number;
  durable: true;
  autoDelete: false;
  /**
   * Sent when the queue is declared, and fixed from then on. `x-queue-type` never changes; the
   * replica count (x-quorum-initial-group-size) may change in the plan, but a change never
   * recreates the queue: existing queues keep their members (the component ignores it on update).
   */
  arguments: Record<string, string | number>;
  replication: Replication;
  /** Name of the RabbitMQ policy that carries this queue's mutable settings. */
  policy: string;
  /** What the broker applies: arguments merged with the policy definition (RabbitMQ 3.10.8: the smaller value wins for length, TTL and delivery limit, the policy for overflow and expires, the argument for dead-letter keys). */
  effective: Record<string, string | number>;
}

export interface RabbitPolicySpec {
  name: string;
  /** Anchored regex matching exactly one queue. */
  pattern: string;
  applyTo: 'queues';
  priority: number;
  definition: Record<string, string | number>;
}

export interface RabbitExchangeSpec {
  name: string;
  role: 'source' | 'dead-letter' | 'retry';
  type: 'topic' | 'direct' | 'fanout' | 'headers';
  durable: true;
  autoDelete: false;
  /** False for a source exchange the producer owns: the plan binds to it but does not create it. */
  declare: boolean;
}

export interface RabbitBindingSpec {
  source: string;
  destination: string;
  destinationType: 'queue';
  routingKey: string;
}

export interface RabbitPermissionSpec {
  configure: string;
  write: string;
  read: string;
}

export interface RabbitMqPlan extends DeliveryRules {
  mode: RabbitMode;
  brokerVersion: string;
  vhost: string;
  /** Nodes in the cluster, when the policy states it. Exchanges, bindings and policies are on every node. */
  clusterSize?: number;
  mainQueue: string;
  deadLetterExchange: string;
  deadLetterQueue: string;
  /** Direct exchange the runtime publishes retry copies to ("" when the mode needs none). */
  retryExchange: string;
  /** Header that carries the attempt on republished copies. */
  attemptHeader: string;
  exchanges: RabbitExchangeSpec[];
  queues: RabbitQueueSpec[];
  policies: RabbitPolicySpec[];
  bindings: RabbitBindingSpec[];
  /** Least-privilege regexes for the consumer's user. */
  consumerPermissions: RabbitPermissionSpec;
}

export interface KafkaTopicSpec {
  name: string;
  role: 'source' | 'retry' | 'dead-letter';
  level?: number;
  delayMs?: number;
  partitions: number;
  replicationFactor: number;
  replication: Replication;
  /** Kafka topic config; values are strings as Kafka sends them. */
  config: Record<string, string>;
  declare: boolean;
}

export interface KafkaPlan extends DeliveryRules {
  sourceTopic: string;
  consumerGroup: string;
  retryConsumerGroup: string;
  deadLetterTopic: string;
  ordering: 'park-key' | 'none';
  attemptHeader: string;
  notBeforeHeader: string;
  maxPollIntervalMs: number;
  /** How the runtime produces copies. Idempotence (no duplicate from a producer retry) needs acks -1. */
  producer: { acks: KafkaAcks; idempotent: boolean };
  /** Brokers in the cluster, when the policy states it. */
  clusterSize?: number;
  topics: KafkaTopicSpec[];
  /**
   * ACLs for the consumer principal, one per operation, exactly as the component makes them.
   * `prefixed`: every resource whose name starts with `name` (the retry topics, one pattern for
   * all levels); `literal`: that name only. Kafka grants Describe with Read and with Write on the
   * same resource, so it is never listed.
   */
  consumerAcls: Array<{
    resource: 'topic' | 'group';
    name: string;
    pattern: 'literal' | 'prefixed';
    operations: Array<'Read' | 'Write'>;
  }>;
}

export interface ServiceBusEntityProperties {
  maxDeliveryCount: number;
  lockDuration: string;
  defaultMessageTimeToLive: string;
  deadLetteringOnMessageExpiration: true;
  requiresDuplicateDetection: boolean;
  duplicateDetectionHistoryTimeWindow?: string;
  forwardDeadLetteredMessagesTo?: string;
}

export interface ServiceBusEntitySpec {
  role: 'main' | 'retry';
  kind: 'queue' | 'subscription';
  name: string;
  topic?: string;
  properties: ServiceBusEntityProperties;
}

/** One place dead letters end up, and which attempts' failures land there. */
export interface ServiceBusDeadLetterQueue {
  /** "<entity>/$deadletterqueue", or the forwardDeadLettersTo entity. */
  path: string;
  /** The entity the message was received from when it was dead-lettered. */
  from: string;
  /** The attempts received from `from`: a failure on one of these lands here. */
  attempts: { from: number; to: number };
}

export interface ServiceBusPlan extends DeliveryRules {
  entity: { kind: 'queue'; queue: string } | { kind: 'subscription'; topic: string; subscription: string };
  /** Where scheduled copies go: the queue itself, or a retry queue for a subscription. */
  scheduleTo: string;
  /**
   * Every place dead letters end up, first attempt first. With a retry queue there are two: a
   * failure on attempt 1 in the entity's own subqueue, later ones (exhausted included) in the
   * retry queue's. `deadLetter` is the last one's path.
   */
  deadLetterQueues: ServiceBusDeadLetterQueue[];
  attemptProperty: string;
  lockDurationMs: number;
  lockRenewalMs: number;
  /** Service Bus replicates every entity itself (within a region); there is nothing to set. */
  replication: 'managed-by-service';
  entities: ServiceBusEntitySpec[];
}

export interface ClassificationPlan {
  transient: { errorNames: string[]; errorCodes: string[]; httpStatuses: number[] };
  permanent: { errorNames: string[]; errorCodes: string[]; httpStatuses: number[] };
  unknown: 'permanent' | 'transient';
}

export interface RetryPlan {
  planVersion: typeof PLAN_VERSION;
  policy: string;
  /** metadata.environment; left out when the policy does not say. */
  environment?: Environment;
  consumer: string;
  maxAttempts: number;
  classification: ClassificationPlan;
  idempotency: { idempotent: boolean; key?: string };
  ordering: 'none' | 'per-key';
  amplification: { deliveries: number; perDelivery: number; inner: number; total: number; budget: number };
  /** The policy's delays before any target's mechanism is applied. */
  delaysMs: number[];
  targets: {
    rabbitmq?: RabbitMqPlan;
    kafka?: KafkaPlan;
    serviceBus?: ServiceBusPlan;
  };
  /** Warnings that did not stop the plan. */
  findings: Issue[];
}
