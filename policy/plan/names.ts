import type { IssuePath } from '../issues';
import type { KafkaTarget, Policy, RabbitTarget, ServiceBusTarget } from '../types';
import type { TargetName } from './targets';

/**
 * Entity names come from the policy name, the role and the level ordinal. They never contain a
 * delay, so changing a delay renames (and recreates) nothing.
 */

export const NAME_LIMITS = {
  // AMQP 0-9-1 names and routing keys are shortstr: at most 255 bytes of UTF-8.
  rabbitmq: { maxBytes: 255, reservedPrefix: 'amq.' },
  // Kafka 4.x: topic names up to 249 characters of [a-zA-Z0-9._-]. A group id has no length
  // check on the broker (KAFKA-7160 was closed unmerged); the protocol's STRING holds 32,767 bytes.
  kafka: { maxChars: 249, pattern: /^[a-zA-Z0-9._-]+$/, groupMaxBytes: 32_767 },
  // Azure Service Bus: queue and topic paths up to 260 characters, subscriptions up to 50;
  // letters, digits, ".", "_", "-" (and "/" in paths), starting and ending with a letter or digit.
  serviceBus: {
    maxChars: 260,
    subscriptionMaxChars: 50,
    pattern: /^[a-zA-Z0-9]([a-zA-Z0-9._\-/]*[a-zA-Z0-9])?$/,
    subscriptionPattern: /^[a-zA-Z0-9]([a-zA-Z0-9._-]*[a-zA-Z0-9])?$/,
  },
} as const;

export function rabbitNames(policy: Policy, target: RabbitTarget) {
  return {
    main: target.queue,
    deadLetterExchange: `${policy.name}.dlx`,
    /** Where the runtime publishes retry copies (ttl-queues and delivery-time modes). */
    retryExchange: `${policy.name}.retry`,
    deadLetterQueue: policy.deadLetter.name ?? `${policy.name}.dlq`,
    wait: (level: number) => `${policy.name}.retry.${level}`,
    /** One RabbitMQ policy per queue, named after it. */
    policyFor: (queue: string) => `retry-topology.${queue}`,
  };
}

/**
 * What every retry topic of a policy starts with: the consumer's prefixed ACLs cover exactly the
 * topics under it, whichever levels exist now or existed before.
 */
export function kafkaRetryPrefix(policyName: string): string {
  return `${policyName}.retry.`;
}

/** Every retry prefix a topic name falls under: each `<x>.retry.` it starts with. */
export function retryPrefixesOf(topic: string): string[] {
  const marker = '.retry.';
  const out: string[] = [];
  for (let at = topic.indexOf(marker); at !== -1; at = topic.indexOf(marker, at + 1))
    out.push(topic.slice(0, at + marker.length));
  return out;
}

export function kafkaNames(policy: Policy, target: KafkaTarget) {
  const retryPrefix = kafkaRetryPrefix(policy.name);
  return {
    retryPrefix,
    retry: (level: number) => `${retryPrefix}${level}`,
    deadLetter: policy.deadLetter.name ?? `${policy.name}.dlt`,
    retryGroup: `${target.consumerGroup}.retry`,
  };
}

export function serviceBusNames(policy: Policy, target: ServiceBusTarget) {
  const retryQueue = `${policy.name}.retry`;
  // A subscription's copies scheduled on the topic would reach every other subscription again,
  // and a copy keeps its messageId, so duplicate detection would drop it as a duplicate.
  const needsRetryQueue = target.entity === 'subscription' || target.duplicateDetectionMs !== undefined;
  return {
    retryQueue: needsRetryQueue ? retryQueue : undefined,
    scheduleTo: needsRetryQueue ? retryQueue : target.entity === 'queue' ? target.queue : retryQueue,
  };
}

export interface NamedEntity {
  target: TargetName;
  kind: 'queue' | 'exchange' | 'topic' | 'subscription' | 'group';
  name: string;
  /** The policy field a user changes to fix the name. */
  path: IssuePath;
  /**
   * The names this one must differ from on its broker: RabbitMQ queues of one vhost, its
   * exchanges, Kafka topics, consumer groups, Service Bus queues and topics together, the
   * subscriptions of one topic.
   */
  scope: string;
  /** What the broker compares: Kafka treats "." and "_" as one (metric names), Service Bus ignores case. */
  key: string;
  /** Provisioned (or, for a consumer group, used) by this policy alone; false for one it only uses. */
  owned: boolean;
  /**
   * A name several policies may name together: the source exchange or topic they all consume
   * from (declared by at most one), the queue they all forward dead letters to.
   */
  shared?: 'source' | 'forward';
}

/** "a.b_c" and "a_b.c" are one topic to Kafka: it refuses the second ("collides with existing topics"). */
export function kafkaTopicKey(name: string): string {
  return name.replace(/\./g, '_');
}

/** Every entity name a policy produces or uses, for the name rules and the cross-policy checks. */
export function entityNames(policy: Policy): NamedEntity[] {
  const out: NamedEntity[] = [];
  const levels = Math.max(0, policy.maxAttempts - 1);
  const namePath = ['metadata', 'name'];
  const deadLetterPath = policy.deadLetter.name ? ['spec', 'deadLetter', 'name'] : namePath;
  const { rabbitmq, kafka, serviceBus } = policy.targets;
  if (rabbitmq) {
    const names = rabbitNames(policy, rabbitmq);
    const at = (key: string) => ['spec', 'targets', 'rabbitmq', key];
    const vhost = JSON.stringify(rabbitmq.vhost);
    const queue = (name: string, path: IssuePath): NamedEntity => ({
      target: 'rabbitmq',
      kind: 'queue',
      name,
      path,
      scope: `queues of vhost ${vhost}`,
      key: name,
      owned: true,
    });
    const exchange = (name: string, path: IssuePath): NamedEntity => ({
      target: 'rabbitmq',
      kind: 'exchange',
      name,
      path,
      scope: `exchanges of vhost ${vhost}`,
      key: name,
      owned: true,
    });
    out.push(queue(names.main, at('queue')));
    out.push(queue(names.deadLetterQueue, deadLetterPath));
    out.push({
      ...exchange(rabbitmq.exchange, at('exchange')),
      owned: rabbitmq.declareExchange,
      shared: 'source',
    });
    out.push(exchange(names.deadLetterExchange, namePath));
    if (rabbitmq.mode !== 'quorum-delayed-retry' && levels > 0)
      out.push(exchange(names.retryExchange, namePath));
    if (rabbitmq.mode === 'ttl-queues') {
      for (let level = 1; level <= levels; level++) out.push(queue(names.wait(level), namePath));
    }
  }
  if (kafka) {
    const names = kafkaNames(policy, kafka);
    const topic = (name: string, path: IssuePath): NamedEntity => ({
      target: 'kafka',
      kind: 'topic',
      name,
      path,
      scope: 'topics',
      key: kafkaTopicKey(name),
      owned: true,
    });
    const groupPath = ['spec', 'targets', 'kafka', 'consumerGroup'];
    const group = (name: string): NamedEntity => ({
      target: 'kafka',
      kind: 'group',
      name,
      path: groupPath,
      scope: 'consumer groups',
      key: name,
      owned: true,
    });
    out.push({
      ...topic(kafka.topic, ['spec', 'targets', 'kafka', 'topic']),
      owned: kafka.declareTopic,
      shared: 'source',
    });
    out.push(topic(names.deadLetter, deadLetterPath));
    for (let level = 1; level <= levels; level++) out.push(topic(names.retry(level), namePath));
    out.push(group(kafka.consumerGroup));
    out.push(group(names.retryGroup));
  }
  if (serviceBus) {
    const base = ['spec', 'targets', 'serviceBus'];
    const entity = (kind: 'queue' | 'topic', name: string, path: IssuePath): NamedEntity => ({
      target: 'serviceBus',
      kind,
      name,
      path,
      scope: 'queues and topics',
      key: name.toLowerCase(),
      owned: true,
    });
    if (serviceBus.entity === 'queue') {
      out.push(entity('queue', serviceBus.queue, [...base, 'queue']));
    } else {
      out.push({ ...entity('topic', serviceBus.topic, [...base, 'topic']), owned: false, shared: 'source' });
      out.push({
        target: 'serviceBus',
        kind: 'subscription',
        name: serviceBus.subscription,
        path: [...base, 'subscription'],
        scope: `subscriptions of topic ${JSON.stringify(serviceBus.topic.toLowerCase())}`,
        key: serviceBus.subscription.toLowerCase(),
        owned: true,
      });
    }
    const { retryQueue } = serviceBusNames(policy, serviceBus);
    if (retryQueue) out.push(entity('queue', retryQueue, namePath));
    if (serviceBus.forwardDeadLettersTo !== undefined)
      out.push({
        ...entity('queue', serviceBus.forwardDeadLettersTo, [...base, 'forwardDeadLettersTo']),
        owned: false,
        shared: 'forward',
      });
  }
  return out;
}
