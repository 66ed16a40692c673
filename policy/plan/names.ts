import type { IssuePath } from '../issues';
import type { KafkaTarget, Policy, RabbitTarget, ServiceBusTarget } from '../types';

/**
 * Entity names come from the policy name, the role and the level ordinal. They never contain a
 * delay, so changing a delay renames (and recreates) nothing.
 */

export type TargetName = 'rabbitmq' | 'kafka' | 'serviceBus';

export const NAME_LIMITS = {
  rabbitmq: { maxBytes: 255 },
  kafka: { maxChars: 249, pattern: /^[a-zA-Z0-9._-]+$/ },
  serviceBus: { maxChars: 260, subscriptionMaxChars: 50, pattern: /^[a-zA-Z0-9][a-zA-Z0-9._\-/]*$/ },
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

export function kafkaNames(policy: Policy, target: KafkaTarget) {
  return {
    retry: (level: number) => `${policy.name}.retry.${level}`,
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
}

/** Every entity name a policy produces, for the name rules. */
export function entityNames(policy: Policy): NamedEntity[] {
  const out: NamedEntity[] = [];
  const levels = Math.max(0, policy.maxAttempts - 1);
  const namePath = ['metadata', 'name'];
  const deadLetterPath = policy.deadLetter.name ? ['spec', 'deadLetter', 'name'] : namePath;
  const { rabbitmq, kafka, serviceBus } = policy.targets;
  if (rabbitmq) {
    const names = rabbitNames(policy, rabbitmq);
    const queuePath = ['spec', 'targets', 'rabbitmq', 'queue'];
    out.push({ target: 'rabbitmq', kind: 'queue', name: names.main, path: queuePath });
    out.push({ target: 'rabbitmq', kind: 'queue', name: names.deadLetterQueue, path: deadLetterPath });
    out.push({
      target: 'rabbitmq',
      kind: 'exchange',
      name: rabbitmq.exchange,
      path: ['spec', 'targets', 'rabbitmq', 'exchange'],
    });
    out.push({ target: 'rabbitmq', kind: 'exchange', name: names.deadLetterExchange, path: namePath });
    if (rabbitmq.mode !== 'quorum-delayed-retry' && levels > 0)
      out.push({ target: 'rabbitmq', kind: 'exchange', name: names.retryExchange, path: namePath });
    if (rabbitmq.mode === 'ttl-queues') {
      for (let level = 1; level <= levels; level++)
        out.push({ target: 'rabbitmq', kind: 'queue', name: names.wait(level), path: namePath });
    }
  }
  if (kafka) {
    const names = kafkaNames(policy, kafka);
    out.push({
      target: 'kafka',
      kind: 'topic',
      name: kafka.topic,
      path: ['spec', 'targets', 'kafka', 'topic'],
    });
    out.push({ target: 'kafka', kind: 'topic', name: names.deadLetter, path: deadLetterPath });
    out.push({
      target: 'kafka',
      kind: 'group',
      name: names.retryGroup,
      path: ['spec', 'targets', 'kafka', 'consumerGroup'],
    });
    for (let level = 1; level <= levels; level++)
      out.push({ target: 'kafka', kind: 'topic', name: names.retry(level), path: namePath });
  }
  if (serviceBus) {
    const base = ['spec', 'targets', 'serviceBus'];
    if (serviceBus.entity === 'queue') {
      out.push({ target: 'serviceBus', kind: 'queue', name: serviceBus.queue, path: [...base, 'queue'] });
    } else {
      out.push({
        target: 'serviceBus',
        kind: 'subscription',
        name: serviceBus.subscription,
        path: [...base, 'subscription'],
      });
    }
    const { retryQueue } = serviceBusNames(policy, serviceBus);
    if (retryQueue) out.push({ target: 'serviceBus', kind: 'queue', name: retryQueue, path: namePath });
  }
  return out;
}
