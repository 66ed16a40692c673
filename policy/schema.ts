import { z } from 'zod';
import { WARNING_CODES } from './codes';
import { parseDuration } from './duration';
import { API_VERSION, type PolicyInput } from './input';

/**
 * The one description of a retry policy. It validates YAML files and TypeScript objects alike,
 * and `retry-topology schema` prints it as the published JSON Schema. Every default lives here,
 * so editors show the same defaults the plan uses.
 */

const DURATION_PATTERN = '^(\\d+(\\.\\d+)?(ms|s|m|h|d))+$';
/** The same, refusing a total of zero ("0s", "0m0s"): what an editor can check of "positive". */
const POSITIVE_DURATION_PATTERN = '^(?!(0+(\\.0+)?(ms|s|m|h|d))+$)(\\d+(\\.\\d+)?(ms|s|m|h|d))+$';
const DURATION_UNITS = 'A duration with its unit (ms, s, m, h, d), e.g. "500ms", "2s"; "1m30s" adds up.';

/**
 * Every duration node, whatever its JSON Schema says: error messages find durations here (with
 * whether zero is allowed), so the messages do not depend on the published representation.
 */
export const DURATIONS = z.registry<{ positive: boolean }>();

/**
 * A duration written with its unit. The error text is built in schema-issues.ts from the code.
 * The JSON Schema says it with a `pattern`, not `format: "duration"`: that format means ISO 8601
 * ("PT2S"), which Ajv's strict mode refuses to guess at and ajv-formats would check against "2s".
 */
const durationText = () =>
  z
    .string()
    .regex(new RegExp(DURATION_PATTERN))
    .refine((text) => parseDuration(text) !== undefined);

const durationMeta = (description: string | undefined) => ({
  description: description ? `${description} ${DURATION_UNITS}` : DURATION_UNITS,
  examples: ['500ms', '2s', '1m30s'],
});

const duration = (description?: string) =>
  durationText().meta(durationMeta(description)).register(DURATIONS, { positive: false });

const positiveDuration = (description?: string) =>
  durationText()
    .refine((text) => (parseDuration(text) ?? 0) > 0)
    .meta({ ...durationMeta(description), pattern: POSITIVE_DURATION_PATTERN })
    .register(DURATIONS, { positive: true });

/**
 * Lists whose items stand alone: when one item is refused, the rules still read the others (a
 * broken acknowledgement does not turn every acknowledged warning back on). Other lists are one
 * value: one wait, one inner layer missing would change what the rest mean.
 */
export const SEPARATE_ITEMS = z.registry<Record<string, never>>();

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
  transient: errorMatch.meta({ description: 'Errors worth retrying, on top of the presets.' }),
  permanent: errorMatch.meta({ description: 'Checked first: a permanent match wins over a transient one.' }),
  unknown: z
    .enum(['permanent', 'transient'])
    .default('permanent')
    .meta({ description: 'What an error that matches no rule is. Permanent unless you say otherwise.' }),
});

const exponentialBackoff = z.strictObject({
  type: z.literal('exponential').meta({ description: 'Each wait is the previous one times the multiplier.' }),
  initial: positiveDuration('The first wait.'),
  multiplier: z
    .number()
    .min(1)
    .max(100)
    .default(2)
    .meta({ description: 'Growth factor from one wait to the next.' }),
  max: positiveDuration('Cap on one wait. No cap when left out.').optional(),
});

const listBackoff = z.strictObject({
  type: z.literal('list').meta({ description: 'The waits are given one by one.' }),
  delays: z
    .array(positiveDuration())
    .min(1)
    .meta({ description: 'One wait per delayed retry, in order: exactly maxAttempts - 1 of them.' }),
});

const clusterSize = (what: string) =>
  z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .meta({ description: `The ${what}. Given, replica counts are checked against it.` });

const rabbitmqTarget = z.strictObject({
  exchange: entityName().meta({ description: 'The exchange the producer publishes to.' }),
  exchangeType: z
    .enum(['topic', 'direct', 'fanout', 'headers'])
    .default('topic')
    .meta({ description: "The source exchange's type; used only when declareExchange is true." }),
  declareExchange: z
    .boolean()
    .default(false)
    .meta({ description: 'Provision the source exchange too. Leave false when the producer owns it.' }),
  routingKey: z.string().meta({
    description:
      'The binding key from the source exchange to the main queue, e.g. "order.placed": at most 255 bytes of UTF-8 (an AMQP shortstr).',
  }),
  queue: entityName()
    .optional()
    .meta({ description: "The consumer's main queue. Defaults to the policy name." }),
  mode: z
    .enum(['ttl-queues', 'quorum-delayed-retry', 'delivery-time'])
    .default('ttl-queues')
    .meta({
      description:
        'How the broker holds a delayed retry: "ttl-queues", one wait queue per level (any version from ' +
        '3.10); "quorum-delayed-retry", the quorum queue’s own delayed retry (4.3+, waits grow linearly); ' +
        '"delivery-time", a copy with x-opt-delivery-time (4.4+).',
    }),
  brokerVersion: z
    .string()
    .regex(/^\d+\.\d+(\.\d+)?$/)
    .meta({ description: 'The oldest RabbitMQ version this topology must run on, quoted: "3.13.7".' }),
  vhost: z.string().min(1).default('/').meta({ description: 'The virtual host every resource is made in.' }),
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
    .meta({
      description:
        'The length past which a wait queue refuses more copies (reject-publish). A bound on growth, not an exact cap: publishes sent at once can pass it.',
    }),
  overflow: z
    .enum(['reject-publish', 'drop-head'])
    .default('reject-publish')
    .meta({
      description:
        'What a full queue does: "reject-publish" refuses the new message (the runtime keeps it and tries ' +
        'again); "drop-head" drops the oldest. At-least-once dead-lettering needs reject-publish.',
    }),
  deadLetterStrategy: z
    .enum(['at-least-once', 'at-most-once'])
    .default('at-least-once')
    .meta({
      description:
        "The quorum queue's dead-letter-strategy: at-least-once keeps a message until the dead-letter " +
        'queue has it; at-most-once may lose it.',
    }),
  consumerTimeout: positiveDuration("The broker's consumer_timeout (default 30m).").default('30m'),
  policyPriority: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(100)
    .meta({ description: 'Priority of the RabbitMQ policies this topology owns.' }),
  quorumReplicas: z
    .number()
    .int()
    .min(1)
    .max(99)
    .default(3)
    .meta({
      description:
        'Members (replicas) of each quorum queue: x-quorum-initial-group-size, fixed when the queue is ' +
        'first declared. A change never replaces a queue; existing queues keep their members (see docs/replication.md).',
    }),
  clusterSize: clusterSize('nodes in the RabbitMQ cluster'),
});

const kafkaTarget = z.strictObject({
  topic: entityName().meta({ description: 'The source topic.' }),
  consumerGroup: entityName().meta({
    description: "The consumer's group on the source topic; the retry consumers use <group>.retry.",
  }),
  partitions: z
    .number()
    .int()
    .min(1)
    .max(10_000)
    .meta({ description: "The source topic's partition count; retry topics get the same." }),
  declareTopic: z
    .boolean()
    .default(false)
    .meta({ description: 'Provision the source topic too. Leave false when the producer owns it.' }),
  replicationFactor: z.number().int().min(1).max(10).default(3).meta({
    description: 'Replicas of each retry and dead-letter topic (and of the source topic when declared).',
  }),
  minInSyncReplicas: z
    .number()
    .int()
    .min(1)
    .max(10)
    .optional()
    .meta({
      description:
        'min.insync.replicas of those topics: replicas that must have a copy before it counts as written. ' +
        'Default: replicationFactor - 1, between 1 and 2.',
    }),
  acks: z
    .union([z.literal('all'), z.literal(-1), z.literal(1), z.literal(0)])
    .default('all')
    .meta({
      description:
        'Acks the runtime asks for when it writes a retry or dead-letter copy: "all" (or -1) waits for ' +
        'every in-sync replica; 1 only for the leader, so a copy acknowledged just before the leader fails can be lost; ' +
        '0 for nothing, so a copy the broker never wrote is lost without an error.',
    }),
  clusterSize: clusterSize('brokers in the Kafka cluster'),
  maxPollInterval: positiveDuration('max.poll.interval.ms, or KafkaJS rebalanceTimeout.').default('5m'),
  retryRetention: positiveDuration(
    'How long the retry topics keep records; at least twice the longest wait.',
  ).default('7d'),
  ordering: z
    .enum(['park-key', 'none'])
    .optional()
    .meta({ description: 'park-key keeps per-key order. Defaults from spec.ordering.' }),
});

const serviceBusCommon = {
  lockDuration: positiveDuration('Peek-lock duration, at most 5m.').default('1m'),
  lockRenewal: duration("The receiver's maxAutoLockRenewalDuration; 0s turns renewal off.").default('5m'),
  deliveryLimit: z
    .number()
    .int()
    .min(1)
    .max(2000)
    .default(5)
    .meta({ description: 'maxDeliveryCount: a safety net against crash loops (not the retry count).' }),
  forwardDeadLettersTo: entityName().optional().meta({
    description:
      "A queue or topic that receives this entity's dead letters, instead of its dead-letter subqueue.",
  }),
};

const duplicateDetection = positiveDuration(
  'Duplicate detection window on the queue. Left out: off. Retry copies keep their messageId, so ' +
    'with this on they are scheduled to a retry queue of their own instead of being dropped as duplicates.',
).optional();

const serviceBusTarget = z.discriminatedUnion('entity', [
  z.strictObject({
    entity: z.literal('queue').meta({ description: 'The consumer reads a queue.' }),
    queue: entityName().meta({ description: 'The queue the consumer reads.' }),
    duplicateDetection,
    ...serviceBusCommon,
  }),
  z.strictObject({
    entity: z.literal('subscription').meta({ description: 'The consumer reads a topic subscription.' }),
    topic: entityName().meta({ description: 'The topic the producer sends to.' }),
    subscription: entityName().meta({ description: "The consumer's subscription on that topic." }),
    ...serviceBusCommon,
  }),
]);

export const PolicySchema = z
  .strictObject({
    apiVersion: z.literal(API_VERSION).meta({ description: `The policy format version: "${API_VERSION}".` }),
    kind: z.literal('RetryPolicy').meta({ description: 'Always "RetryPolicy".' }),
    metadata: z
      .strictObject({
        name: policyName,
        description: z.string().optional().meta({ description: 'What the consumer does, for reviewers.' }),
        owner: z
          .string()
          .optional()
          .meta({ description: 'The team that owns the consumer, e.g. "team-billing".' }),
        environment: z
          .enum(['production', 'staging', 'development'])
          .optional()
          .meta({
            description:
              'Where this policy runs. "production" turns the replication checks into errors: a single copy, ' +
              'min.insync.replicas equal to the replication factor, acks below all.',
          }),
      })
      .meta({ description: 'Names the policy. Only `name` reaches the broker.' }),
    spec: z
      .strictObject({
        consumer: z.string().min(1).meta({ description: 'The consuming service.' }),
        maxAttempts: z.number().int().min(1).max(100).meta({
          description: 'Deliveries to the handler, the first one included. Retries = maxAttempts - 1.',
        }),
        immediate: z
          .strictObject({
            retries: z.number().int().min(0).max(10).default(0).meta({
              description: 'In-memory retries per delivery, before the next delayed retry. 0: none.',
            }),
            delay: duration('The wait before each in-memory retry (jitter applies).').default('100ms'),
          })
          .default({ retries: 0, delay: '100ms' })
          .meta({ description: 'In-memory retries inside one delivery. Keep them short and few.' }),
        backoff: z.discriminatedUnion('type', [exponentialBackoff, listBackoff]).meta({
          description:
            'The waits between deliveries (the delayed retries): "exponential" from an initial wait, ' +
            'or a "list" of waits.',
        }),
        jitter: z
          .enum(['none', 'full', 'equal'])
          .default('full')
          .meta({
            description:
              'Randomness in each wait, so messages that failed together do not return together. ' +
              '"full": anywhere from 0 to the wait; "equal": from half the wait to the wait; "none": exactly the wait.',
          }),
        classify: classify.meta({
          description:
            'Which errors are retried (transient) and which go straight to the dead letter (permanent).',
        }),
        deadLetter: z
          .strictObject({
            name: entityName().optional().meta({
              description: 'Dead-letter queue/topic name. Defaults to <policy>.dlq / <policy>.dlt.',
            }),
            retention: positiveDuration(
              "How long the Kafka dead-letter topic keeps records. RabbitMQ's dead-letter queue and " +
                "Service Bus's dead-letter subqueue never expire messages.",
            ).default('14d'),
          })
          .default({ retention: '14d' })
          .meta({
            description: 'Where messages go when they fail for good, with the reason in their headers.',
          }),
        messageTtl: positiveDuration(
          "How long a message may live: the RabbitMQ main queue's message-ttl and the Service Bus " +
            "entity's default time to live (never shorter than the retry window there). The retry window must fit in it.",
        ).optional(),
        deadline: positiveDuration('The business deadline the whole retry window must fit in.').optional(),
        innerLayers: z
          .array(
            z.strictObject({
              name: z.string().min(1).meta({ description: 'What retries, e.g. "payment-http-client".' }),
              attempts: z
                .number()
                .int()
                .min(1)
                .max(100)
                .meta({ description: 'Calls it makes per handler call, the first one included.' }),
            }),
          )
          .default([])
          .meta({ description: 'Retries inside the handler, e.g. the HTTP client: they multiply.' }),
        amplificationBudget: z
          .number()
          .int()
          .min(1)
          .default(30)
          .meta({
            description:
              'The most calls one message may cause to the dependency in the worst case: maxAttempts × ' +
              '(1 + immediate retries) × every inner layer’s attempts.',
          }),
        ordering: z
          .enum(['none', 'per-key'])
          .default('none')
          .meta({
            description:
              'per-key: messages of one key must be handled in order, so a retried message must not be ' +
              'overtaken (Kafka parks the later ones; RabbitMQ and Service Bus cannot keep it).',
          }),
        idempotency: z
          .strictObject({
            idempotent: z.boolean().meta({
              description: 'true when handling a message twice has the effect of handling it once.',
            }),
            key: z.string().min(1).optional().meta({ description: 'What the handler deduplicates by.' }),
          })
          .meta({ description: 'Retries repeat deliveries: say how the handler survives that.' }),
        acknowledge: z
          .array(
            z.strictObject({
              code: z
                .enum(WARNING_CODES as [string, ...string[]])
                .meta({ description: 'The warning reviewed and accepted, e.g. "no-jitter".' }),
              reason: z.string().regex(/\S/).meta({
                description: 'Why it is acceptable here: shown with the finding in validate, plan and diff.',
              }),
            }),
          )
          .default([])
          .meta({
            description:
              'Warnings reviewed and accepted for this policy. Each becomes a note carrying its reason, so ' +
              '`validate --strict` passes; an acknowledgement whose warning no longer fires is itself a warning.',
          })
          .register(SEPARATE_ITEMS, {}),
        targets: z
          .strictObject({
            rabbitmq: rabbitmqTarget
              .optional()
              .meta({ description: 'Plan a RabbitMQ topology (quorum queues).' }),
            kafka: kafkaTarget.optional().meta({ description: 'Plan Kafka retry and dead-letter topics.' }),
            serviceBus: serviceBusTarget
              .optional()
              .meta({ description: 'Plan an Azure Service Bus queue or topic subscription.' }),
          })
          .meta({ description: 'Only the targets named here are planned.' }),
      })
      .meta({ description: 'How the consumer retries, and on which brokers.' }),
  })
  .meta({ title: 'retry-topology RetryPolicy', description: 'One consumer’s retry policy.' });

/** The schema's output: every default applied, durations still as text. */
export type PolicyDocument = z.output<typeof PolicySchema>;

/** True only when A and B are the same type (not merely assignable either way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/**
 * Compiles only while policy/input.ts describes exactly what this schema accepts: the published
 * declarations use that plain type, so users' compilers never load the validator's types.
 */
export const INPUT_TYPE_MATCHES: Same<PolicyInput, z.input<typeof PolicySchema>> = true;
