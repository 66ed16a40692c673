import type { IssueCode } from './codes';
import { parseDuration } from './duration';
import type { PolicyDocument } from './schema';
import type { KafkaTarget, Policy, RabbitTarget, ServiceBusTarget } from './types';

/** Only called on documents the schema accepted, so every duration parses. */
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

export function normalizePolicy(doc: PolicyDocument): Policy {
  const { metadata, spec } = doc;
  const backoff =
    spec.backoff.type === 'exponential'
      ? {
          type: 'exponential' as const,
          initialMs: ms(spec.backoff.initial),
          multiplier: spec.backoff.multiplier,
          ...(spec.backoff.max === undefined ? {} : { maxMs: ms(spec.backoff.max) }),
        }
      : { type: 'list' as const, delaysMs: spec.backoff.delays.map(ms) };

  const { rabbitmq, kafka, serviceBus } = spec.targets;
  const targets: Policy['targets'] = {};
  if (rabbitmq) {
    const { consumerTimeout, queue, ...rest } = rabbitmq;
    targets.rabbitmq = {
      ...rest,
      queue: queue ?? metadata.name,
      consumerTimeoutMs: ms(consumerTimeout),
    } satisfies RabbitTarget;
  }
  if (kafka) {
    const { maxPollInterval, retryRetention, ordering, minInSyncReplicas, acks, ...rest } = kafka;
    targets.kafka = {
      ...rest,
      acks: acks === 'all' ? -1 : acks,
      minInSyncReplicas: minInSyncReplicas ?? defaultMinInSync(kafka.replicationFactor),
      maxPollIntervalMs: ms(maxPollInterval),
      retryRetentionMs: ms(retryRetention),
      ordering: ordering ?? (spec.ordering === 'per-key' ? 'park-key' : 'none'),
    } satisfies KafkaTarget;
  }
  if (serviceBus) {
    const common = {
      lockDurationMs: ms(serviceBus.lockDuration),
      lockRenewalMs: ms(serviceBus.lockRenewal),
      deliveryLimit: serviceBus.deliveryLimit,
      ...(serviceBus.forwardDeadLettersTo === undefined
        ? {}
        : { forwardDeadLettersTo: serviceBus.forwardDeadLettersTo }),
    };
    targets.serviceBus = (
      serviceBus.entity === 'queue'
        ? {
            entity: 'queue',
            queue: serviceBus.queue,
            ...common,
            ...(serviceBus.duplicateDetection === undefined
              ? {}
              : { duplicateDetectionMs: ms(serviceBus.duplicateDetection) }),
          }
        : {
            entity: 'subscription',
            topic: serviceBus.topic,
            subscription: serviceBus.subscription,
            ...common,
          }
    ) satisfies ServiceBusTarget;
  }

  return {
    name: metadata.name,
    ...(metadata.description === undefined ? {} : { description: metadata.description }),
    ...(metadata.owner === undefined ? {} : { owner: metadata.owner }),
    ...(metadata.environment === undefined ? {} : { environment: metadata.environment }),
    consumer: spec.consumer,
    maxAttempts: spec.maxAttempts,
    immediate: { retries: spec.immediate.retries, delayMs: ms(spec.immediate.delay) },
    backoff,
    jitter: spec.jitter,
    classify: spec.classify,
    deadLetter: {
      ...(spec.deadLetter.name === undefined ? {} : { name: spec.deadLetter.name }),
      retentionMs: ms(spec.deadLetter.retention),
    },
    ...(spec.messageTtl === undefined ? {} : { messageTtlMs: optionalMs(spec.messageTtl) }),
    ...(spec.deadline === undefined ? {} : { deadlineMs: optionalMs(spec.deadline) }),
    innerLayers: spec.innerLayers,
    amplificationBudget: spec.amplificationBudget,
    ordering: spec.ordering,
    idempotency: spec.idempotency,
    acknowledge: spec.acknowledge.map(({ code, reason }) => ({ code: code as IssueCode, reason })),
    targets,
  };
}
