import { z } from 'zod';
import { parseDuration } from './duration';

/**
 * The one description of a retry policy. It validates YAML files and TypeScript objects alike,
 * and `retry-topology schema` prints it as the published JSON Schema. Every default lives here,
 * so editors show the same defaults the plan uses.
 */

export const API_VERSION = 'retry-topology/v1';

const DURATION_PATTERN = '^(\\d+(\\.\\d+)?(ms|s|m|h|d))+$';
const DURATION_HINT = 'a duration like "500ms" or "2s"';

/**
 * Every duration node, whatever its JSON Schema says: error messages find durations here (with
 * whether zero is allowed), so the messages do not depend on the published representation.
 */
export const DURATIONS = z.registry<{ positive: boolean }>();

/** A duration written with its unit. The error text is built in schema-issues.ts from the code. */
const durationText = () =>
  z
    .string()
    .regex(new RegExp(DURATION_PATTERN))
    .refine((text) => parseDuration(text) !== undefined);

const durationMeta = {
  description: `${DURATION_HINT} (units: ms, s, m, h, d; "1m30s" adds up)`,
  format: 'duration',
};

const duration = () => durationText().meta(durationMeta).register(DURATIONS, { positive: false });

const positiveDuration = () =>
  durationText()
    .refine((text) => (parseDuration(text) ?? 0) > 0)
    .meta(durationMeta)
    .register(DURATIONS, { positive: true });

/** Names that end up in broker entity names; broker limits are checked on the derived names. */
const entityName = () => z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
const policyName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9._-]*[a-z0-9])?$/)
  .max(100)
  .meta({ description: 'Lowercase letters, digits, ".", "_" and "-"; names every derived entity.' });

const errorMatch = z
  .strictObject({
    errorNames: z.array(z.string().min(1)).default([]).meta({ description: 'Matches error.name exactly.' }),
    errorCodes: z
      .array(z.string().min(1))
      .default([])
      .meta({ description: 'Matches String(error.code), e.g. "ECONNRESET".' }),
    httpStatuses: z
      .array(z.number().int().min(100).max(599))
      .default([])
      .meta({ description: 'Matches error.status, error.statusCode or error.response.status.' }),
  })
  .default({ errorNames: [], errorCodes: [], httpStatuses: [] });

export const CLASSIFY_PRESETS = ['http-transient', 'network-transient'] as const;

const classify = z.strictObject({
  presets: z
    .array(z.enum(CLASSIFY_PRESETS))
    .default([])
    .meta({
      description:
        'Ready transient rules: "http-transient" is 408, 429 and 5xx; "network-transient" is ' +
        'ECONNRESET, ECONNREFUSED, ETIMEDOUT, EPIPE, EAI_AGAIN and TimeoutError.',
    }),
  transient: errorMatch,
  permanent: errorMatch.meta({ description: 'Checked first: a permanent match wins over a transient one.' }),
  unknown: z
    .enum(['permanent', 'transient'])
    .default('permanent')
    .meta({ description: 'What an error that matches no rule is. Permanent unless you say otherwise.' }),
});

const exponentialBackoff = z.strictObject({
  type: z.literal('exponential'),
  initial: positiveDuration(),
  multiplier: z.number().min(1).max(100).default(2),
  max: positiveDuration().optional().meta({ description: 'Cap on one wait. No cap when left out.' }),
});

const listBackoff = z.strictObject({
  type: z.literal('list'),
  delays: z
    .array(positiveDuration())
    .min(1)
    .meta({ description: 'One wait per delayed retry, in order: exactly maxAttempts - 1 of them.' }),
});

const rabbitmqTarget = z.strictObject({
  exchange: entityName().meta({ description: 'The exchange the producer publishes to.' }),
  exchangeType: z.enum(['topic', 'direct', 'fanout', 'headers']).default('topic'),
  declareExchange: z
    .boolean()
    .default(false)
    .meta({ description: 'Provision the source exchange too. Leave false when the producer owns it.' }),
  routingKey: z.string().max(255),
  queue: entityName()
    .optional()
    .meta({ description: "The consumer's main queue. Defaults to the policy name." }),
  mode: z.enum(['ttl-queues', 'quorum-delayed-retry', 'delivery-time']).default('ttl-queues'),
  brokerVersion: z
    .string()
    .regex(/^\d+\.\d+(\.\d+)?$/)
    .meta({ description: 'The oldest RabbitMQ version this topology must run on, quoted: "3.13.7".' }),
  vhost: z.string().min(1).default('/'),
  deliveryLimit: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .meta({
      description:
        'Quorum delivery limit. Default 5: a safety net against crash loops. In quorum-delayed-retry ' +
        'mode the broker counts retries with it, so the default there is maxAttempts - 1.',
    }),
  waitQueueMaxLength: z
    .union([z.number().int().min(1), z.literal('unbounded')])
    .default(100_000)
    .meta({ description: 'Messages one wait queue may hold before it refuses more.' }),
  overflow: z.enum(['reject-publish', 'drop-head']).default('reject-publish'),
  deadLetterStrategy: z.enum(['at-least-once', 'at-most-once']).default('at-least-once'),
  consumerTimeout: positiveDuration()
    .default('30m')
    .meta({ description: "The broker's consumer_timeout (default 30m)." }),
  policyPriority: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(100)
    .meta({ description: 'Priority of the RabbitMQ policies this topology owns.' }),
});

const kafkaTarget = z.strictObject({
  topic: entityName().meta({ description: 'The source topic.' }),
  consumerGroup: entityName(),
  partitions: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .meta({ description: "The source topic's partition count; retry topics get the same." }),
  declareTopic: z.boolean().default(false),
  replicationFactor: z.number().int().min(1).max(10).default(3),
  minInSyncReplicas: z.number().int().min(1).max(10).optional(),
  maxPollInterval: positiveDuration()
    .default('5m')
    .meta({ description: 'max.poll.interval.ms, or KafkaJS rebalanceTimeout.' }),
  retryRetention: positiveDuration().default('7d'),
  ordering: z
    .enum(['park-key', 'none'])
    .optional()
    .meta({ description: 'park-key keeps per-key order. Defaults from spec.ordering.' }),
});

const serviceBusCommon = {
  lockDuration: positiveDuration().default('1m').meta({ description: 'Peek-lock duration, at most 5m.' }),
  lockRenewal: duration()
    .default('5m')
    .meta({ description: "The receiver's maxAutoLockRenewalDuration; 0s turns renewal off." }),
  deliveryLimit: z
    .number()
    .int()
    .min(1)
    .max(2000)
    .default(5)
    .meta({ description: 'maxDeliveryCount: a safety net against crash loops (not the retry count).' }),
  forwardDeadLettersTo: entityName().optional(),
};

const duplicateDetection = positiveDuration()
  .optional()
  .meta({
    description:
      'Duplicate detection window on the queue. Left out: off. Retry copies keep their messageId, so ' +
      'with this on they are scheduled to a retry queue of their own instead of being dropped as duplicates.',
  });

const serviceBusTarget = z.discriminatedUnion('entity', [
  z.strictObject({
    entity: z.literal('queue'),
    queue: entityName(),
    duplicateDetection,
    ...serviceBusCommon,
  }),
  z.strictObject({
    entity: z.literal('subscription'),
    topic: entityName(),
    subscription: entityName(),
    ...serviceBusCommon,
  }),
]);

export const PolicySchema = z
  .strictObject({
    apiVersion: z.literal(API_VERSION),
    kind: z.literal('RetryPolicy'),
    metadata: z.strictObject({
      name: policyName,
      description: z.string().optional(),
      owner: z.string().optional(),
    }),
    spec: z.strictObject({
      consumer: z.string().min(1).meta({ description: 'The consuming service.' }),
      maxAttempts: z.number().int().min(1).max(100).meta({
        description: 'Deliveries to the handler, the first one included. Retries = maxAttempts - 1.',
      }),
      immediate: z
        .strictObject({
          retries: z.number().int().min(0).max(10).default(0),
          delay: duration().default('100ms'),
        })
        .default({ retries: 0, delay: '100ms' })
        .meta({ description: 'In-memory retries inside one delivery. Keep them short and few.' }),
      backoff: z.discriminatedUnion('type', [exponentialBackoff, listBackoff]),
      jitter: z.enum(['none', 'full', 'equal']).default('full'),
      classify,
      deadLetter: z
        .strictObject({
          name: entityName()
            .optional()
            .meta({ description: 'Dead-letter queue/topic name. Defaults to <policy>.dlq / <policy>.dlt.' }),
          retention: positiveDuration().default('14d'),
        })
        .default({ retention: '14d' }),
      messageTtl: positiveDuration().optional(),
      deadline: positiveDuration()
        .optional()
        .meta({ description: 'The business deadline the whole retry window must fit in.' }),
      innerLayers: z
        .array(
          z.strictObject({
            name: z.string().min(1),
            attempts: z.number().int().min(1).max(100),
          }),
        )
        .default([])
        .meta({ description: 'Retries inside the handler, e.g. the HTTP client: they multiply.' }),
      amplificationBudget: z.number().int().min(1).default(30),
      ordering: z.enum(['none', 'per-key']).default('none'),
      idempotency: z
        .strictObject({
          idempotent: z.boolean(),
          key: z.string().min(1).optional().meta({ description: 'What the handler deduplicates by.' }),
        })
        .meta({ description: 'Retries repeat deliveries: say how the handler survives that.' }),
      targets: z
        .strictObject({
          rabbitmq: rabbitmqTarget.optional(),
          kafka: kafkaTarget.optional(),
          serviceBus: serviceBusTarget.optional(),
        })
        .meta({ description: 'Only the targets named here are planned.' }),
    }),
  })
  .meta({ title: 'retry-topology RetryPolicy', description: 'One consumer’s retry policy.' });

/** What a policy author writes (YAML or TypeScript): defaults may be left out. */
export type PolicyInput = z.input<typeof PolicySchema>;
/** The schema's output: every default applied, durations still as text. */
export type PolicyDocument = z.output<typeof PolicySchema>;

export function policyJsonSchema(): Record<string, unknown> {
  // Draft-07: the dialect yaml-language-server and most editors understand fully.
  return z.toJSONSchema(PolicySchema, { io: 'input', unrepresentable: 'any', target: 'draft-7' }) as Record<
    string,
    unknown
  >;
}
