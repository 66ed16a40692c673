import type { KafkaTarget, Policy } from '../types';
import { kafkaNames } from './names';
import { kafkaReplication } from './replication';
import { deliveryRules, jitterRange } from './timeline';
import type { KafkaPlan, KafkaTopicSpec, Level } from './types';

export const KAFKA_ATTEMPT_HEADER = 'retry-attempt';
export const KAFKA_NOT_BEFORE_HEADER = 'retry-not-before';

/**
 * Kafka topology: one retry topic per level (a short delay never waits behind a long one) and a
 * dead-letter topic. Every topic has the source's partition count, so a key keeps its partition
 * number along the chain. Topic config updates in place; names never carry a delay.
 */
export function planKafka(policy: Policy, target: KafkaTarget, delays: number[]): KafkaPlan {
  const names = kafkaNames(policy, target);
  const levels: Level[] = delays.map((delayMs, index) => ({
    level: index + 1,
    delayMs,
    waitMs: jitterRange(delayMs, policy.jitter),
    destination: names.retry(index + 1),
  }));
  const shared = {
    partitions: target.partitions,
    replicationFactor: target.replicationFactor,
    replication: kafkaReplication(target.replicationFactor, target.minInSyncReplicas, target.acks),
  };
  const durability = {
    'cleanup.policy': 'delete',
    'min.insync.replicas': String(target.minInSyncReplicas),
  };
  const topics: KafkaTopicSpec[] = [];
  if (target.declareTopic) {
    topics.push({ name: target.topic, role: 'source', ...shared, config: durability, declare: true });
  }
  for (const level of levels) {
    topics.push({
      name: level.destination,
      role: 'retry',
      level: level.level,
      delayMs: level.delayMs,
      ...shared,
      config: { ...durability, 'retention.ms': String(target.retryRetentionMs) },
      declare: true,
    });
  }
  topics.push({
    name: names.deadLetter,
    role: 'dead-letter',
    ...shared,
    config: { ...durability, 'retention.ms': String(policy.deadLetter.retentionMs) },
    declare: true,
  });

  return {
    ...deliveryRules(policy, levels, true, names.deadLetter),
    sourceTopic: target.topic,
    consumerGroup: target.consumerGroup,
    retryConsumerGroup: names.retryGroup,
    deadLetterTopic: names.deadLetter,
    ordering: target.ordering,
    attemptHeader: KAFKA_ATTEMPT_HEADER,
    notBeforeHeader: KAFKA_NOT_BEFORE_HEADER,
    maxPollIntervalMs: target.maxPollIntervalMs,
    producer: { acks: target.acks, idempotent: target.acks === -1 },
    ...(target.clusterSize === undefined ? {} : { clusterSize: target.clusterSize }),
    topics,
    // Exactly the ACLs the component makes. No Describe: Kafka grants it with Read or Write on the
    // same resource (its authorization docs; the StandardAuthorizer of 4.x), so a Describe ACL
    // would allow nothing more, and a plan listing it would promise resources never made.
    consumerAcls: [
      { resource: 'topic', name: target.topic, pattern: 'literal', operations: ['Read'] },
      // One pattern for every retry topic: a level added later is covered before any consumer
      // publishes to it, and a level removed (its topic kept on the broker with its records) stays
      // readable. Cross-policy validation refuses any other topic under the prefix.
      ...(levels.length > 0
        ? [
            {
              resource: 'topic' as const,
              name: names.retryPrefix,
              pattern: 'prefixed' as const,
              operations: ['Read', 'Write'] as Array<'Read' | 'Write'>,
            },
          ]
        : []),
      { resource: 'topic', name: names.deadLetter, pattern: 'literal', operations: ['Write'] },
      { resource: 'group', name: target.consumerGroup, pattern: 'literal', operations: ['Read'] },
      { resource: 'group', name: names.retryGroup, pattern: 'literal', operations: ['Read'] },
    ],
  };
}
