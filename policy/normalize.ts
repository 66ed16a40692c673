import type { IssueCode } from './codes';
import { parseDuration } from './duration';
import type { PolicyDocument } from './schema';
import type { Backoff, KafkaTarget, Policy, RabbitTarget, ServiceBusTarget } from './types';

/** Only called on values the schema accepted, so every duration parses. */
function ms(text: string): number {
  const value = parseDuration(text);
  if (value === undefined) throw new Error(`internal: unvalidated duration ${JSON.stringify(text)}`);
  return value;
}

function optionalMs(text: string | undefined): number | undefined {
  return text === undefined ? undefined : ms(text);
}

/** A replication factor of 3 keeps writes going with one broker down: min.insync = 2. */
function defaultMinInSync(replicationFactor: number): number {
  return Math.max(1, Math.min(2, replicationFactor - 1));
}

/** How to compute each field of T; every field is listed, so a new one cannot be forgotten. */
type Fields<T> = { [K in keyof T]-?: () => T[K] };

/**
 * An object built field by field. Eager (a document the schema accepted): every field now, the
 * undefined ones left out. Lazy (a document with refused parts, read by readParts): each field
 * when it is read, so a field computed from a refused part throws RefusedPart then, and only
 * the rules that read it are skipped.
 */
function build<T extends object>(fields: Fields<T>, lazy: boolean): T {
  const out: Record<string, unknown> = {};
  for (const [key, compute] of Object.entries(fields) as Array<[string, () => unknown]>) {
    if (lazy) {
      Object.defineProperty(out, key, { enumerable: true, get: compute });
      continue;
    }
    const value = compute();
    if (value !== undefined) out[key] = value;
  }
  return out as T;
}

type RabbitInput = NonNullable<PolicyDocument['spec']['targets']['rabbitmq']>;
type KafkaInput = NonNullable<PolicyDocument['spec']['targets']['kafka']>;
type ServiceBusInput = NonNullable<PolicyDocument['spec']['targets']['serviceBus']>;

function backoffOf(backoff: PolicyDocument['spec']['backoff']): Backoff {
  return backoff.type === 'exponential'
    ? {
        type: 'exponential',
        initialMs: ms(backoff.initial),
        multiplier: backoff.multiplier,
        ...(backoff.max === undefined ? {} : { maxMs: ms(backoff.max) }),
      }
    : { type: 'list', delaysMs: backoff.delays.map(ms) };
}

function rabbitTarget(target: RabbitInput, policyName: () => string, lazy: boolean): RabbitTarget {
  return build<RabbitTarget>(
    {
      exchange: () => target.exchange,
      exchangeType: () => target.exchangeType,
      declareExchange: () => target.declareExchange,
      routingKey: () => target.routingKey,
      mode: () => target.mode,
      brokerVersion: () => target.brokerVersion,
      vhost: () => target.vhost,
      deliveryLimit: () => target.deliveryLimit,
      waitQueueMaxLength: () => target.waitQueueMaxLength,
      overflow: () => target.overflow,
      deadLetterStrategy: () => target.deadLetterStrategy,
      policyPriority: () => target.policyPriority,
      quorumReplicas: () => target.quorumReplicas,
      clusterSize: () => target.clusterSize,
      queue: () => target.queue ?? policyName(),
      consumerTimeoutMs: () => ms(target.consumerTimeout),
    },
    lazy,
  );
}

function kafkaTarget(
  target: KafkaInput,
  policyOrdering: () => PolicyDocument['spec']['ordering'],
  lazy: boolean,
): KafkaTarget {
  return build<KafkaTarget>(
    {
      topic: () => target.topic,
      consumerGroup: () => target.consumerGroup,
      partitions: () => target.partitions,
      declareTopic: () => target.declareTopic,
      replicationFactor: () => target.replicationFactor,
      clusterSize: () => target.clusterSize,
      acks: () => (target.acks === 'all' ? -1 : target.acks),
      minInSyncReplicas: () => target.minInSyncReplicas ?? defaultMinInSync(target.replicationFactor),
      maxPollIntervalMs: () => ms(target.maxPollInterval),
      retryRetentionMs: () => ms(target.retryRetention),
      ordering: () => target.ordering ?? (policyOrdering() === 'per-key' ? 'park-key' : 'none'),
    },
    lazy,
  );
}

/** One value: its fields depend on `entity`, so a Service Bus target is read whole or not at all. */
function serviceBusTarget(target: ServiceBusInput): ServiceBusTarget {
  const common = {
    lockDurationMs: ms(target.lockDuration),
    lockRenewalMs: ms(target.lockRenewal),
    deliveryLimit: target.deliveryLimit,
    ...(target.forwardDeadLettersTo === undefined
      ? {}
      : { forwardDeadLettersTo: target.forwardDeadLettersTo }),
  };
  return target.entity === 'queue'
    ? {
        entity: 'queue',
        queue: target.queue,
        ...common,
        ...(target.duplicateDetection === undefined
          ? {}
          : { duplicateDetectionMs: ms(target.duplicateDetection) }),
      }
    : { entity: 'subscription', topic: target.topic, subscription: target.subscription, ...common };
}

/**
 * The schema's output as the rules and derivePlan read it. `lazy` is for a document with refused
 * parts (readParts): the policy it returns is only for the rules, and never leaves checkDocument.
 */
export function normalizePolicy(doc: PolicyDocument, lazy = false): Policy {
  const name = () => doc.metadata.name;
  const targets = () => doc.spec.targets;
  return build<Policy>(
    {
      name,
      description: () => doc.metadata.description,
      owner: () => doc.metadata.owner,
      environment: () => doc.metadata.environment,
      consumer: () => doc.spec.consumer,
      maxAttempts: () => doc.spec.maxAttempts,
      immediate: () => ({ retries: doc.spec.immediate.retries, delayMs: ms(doc.spec.immediate.delay) }),
      backoff: () => backoffOf(doc.spec.backoff),
      jitter: () => doc.spec.jitter,
      classify: () => doc.spec.classify,
      deadLetter: () => ({
        ...(doc.spec.deadLetter.name === undefined ? {} : { name: doc.spec.deadLetter.name }),
        retentionMs: ms(doc.spec.deadLetter.retention),
      }),
      messageTtlMs: () => optionalMs(doc.spec.messageTtl),
      deadlineMs: () => optionalMs(doc.spec.deadline),
      innerLayers: () => doc.spec.innerLayers,
      amplificationBudget: () => doc.spec.amplificationBudget,
      ordering: () => doc.spec.ordering,
      idempotency: () => doc.spec.idempotency,
      acknowledge: () =>
        doc.spec.acknowledge.map(({ code, reason }) => ({ code: code as IssueCode, reason })),
      targets: () =>
        build<Policy['targets']>(
          {
            rabbitmq: () => {
              const target = targets().rabbitmq;
              return target && rabbitTarget(target, name, lazy);
            },
            kafka: () => {
              const target = targets().kafka;
              return target && kafkaTarget(target, () => doc.spec.ordering, lazy);
            },
            serviceBus: () => {
              const target = targets().serviceBus;
              return target && serviceBusTarget(target);
            },
          },
          lazy,
        ),
    },
    lazy,
  );
}
