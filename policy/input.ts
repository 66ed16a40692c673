/**
 * What a policy author writes, in YAML or as a TypeScript object: the shape of the JSON Schema,
 * with every default left optional. Written out as plain types, not inferred from the validator,
 * so the published declarations name no validator library; policy/schema.ts checks at compile
 * time that these and the validator describe exactly the same documents. Type aliases, not
 * interfaces, so a document also fits a `Record<string, unknown>`. The meaning of each field is
 * in the JSON Schema, schema/retry-policy.schema.json.
 */

export const API_VERSION = 'retry-topology/v1';

/** A duration with its unit: "500ms", "2s", "10m", "1h", "7d", or a sum such as "1m30s". */
export type DurationText = string;

export type ErrorMatchInput = {
  errorNames?: string[];
  errorCodes?: string[];
  httpStatuses?: number[];
};

export type ClassifyInput = {
  presets?: Array<'http-transient' | 'network-transient'>;
  transient?: ErrorMatchInput;
  permanent?: ErrorMatchInput;
  unknown?: 'permanent' | 'transient';
};

export type BackoffInput =
  | { type: 'exponential'; initial: DurationText; multiplier?: number; max?: DurationText }
  | { type: 'list'; delays: DurationText[] };

export type RabbitTargetInput = {
  exchange: string;
  exchangeType?: 'topic' | 'direct' | 'fanout' | 'headers';
  declareExchange?: boolean;
  routingKey: string;
  queue?: string;
  mode?: 'ttl-queues' | 'quorum-delayed-retry' | 'delivery-time';
  brokerVersion: string;
  vhost?: string;
  deliveryLimit?: number;
  waitQueueMaxLength?: number | 'unbounded';
  overflow?: 'reject-publish' | 'drop-head';
  deadLetterStrategy?: 'at-least-once' | 'at-most-once';
  consumerTimeout?: DurationText;
  policyPriority?: number;
  quorumReplicas?: number;
  clusterSize?: number;
};

export type KafkaTargetInput = {
  topic: string;
  consumerGroup: string;
  partitions: number;
  declareTopic?: boolean;
  replicationFactor?: number;
  minInSyncReplicas?: number;
  acks?: 'all' | -1 | 1 | 0;
  clusterSize?: number;
  maxPollInterval?: DurationText;
  retryRetention?: DurationText;
  ordering?: 'park-key' | 'none';
};

export type ServiceBusQueueInput = {
  entity: 'queue';
  queue: string;
  duplicateDetection?: DurationText;
  lockDuration?: DurationText;
  lockRenewal?: DurationText;
  deliveryLimit?: number;
  forwardDeadLettersTo?: string;
};

export type ServiceBusSubscriptionInput = {
  entity: 'subscription';
  topic: string;
  subscription: string;
  lockDuration?: DurationText;
  lockRenewal?: DurationText;
  deliveryLimit?: number;
  forwardDeadLettersTo?: string;
};

export type ServiceBusTargetInput = ServiceBusQueueInput | ServiceBusSubscriptionInput;

export type PolicySpecInput = {
  consumer: string;
  maxAttempts: number;
  immediate?: { retries?: number; delay?: DurationText };
  backoff: BackoffInput;
  jitter?: 'none' | 'full' | 'equal';
  classify: ClassifyInput;
  deadLetter?: { name?: string; retention?: DurationText };
  messageTtl?: DurationText;
  deadline?: DurationText;
  innerLayers?: Array<{ name: string; attempts: number }>;
  amplificationBudget?: number;
  ordering?: 'none' | 'per-key';
  idempotency: { idempotent: boolean; key?: string };
  /** Warnings reviewed and accepted: `code` is a warning's code (see WARNING_CODES), `reason` why. */
  acknowledge?: Array<{ code: string; reason: string }>;
  targets: {
    rabbitmq?: RabbitTargetInput;
    kafka?: KafkaTargetInput;
    serviceBus?: ServiceBusTargetInput;
  };
};

/** One policy document. */
export type PolicyInput = {
  apiVersion: typeof API_VERSION;
  kind: 'RetryPolicy';
  metadata: {
    name: string;
    description?: string;
    owner?: string;
    environment?: 'production' | 'staging' | 'development';
  };
  spec: PolicySpecInput;
};
