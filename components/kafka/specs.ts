import type { KafkaPlan, KafkaTopicSpec } from '../../policy';
import { assertUniqueKeys } from '../children';
import { TopologyError } from '../errors';
import type { Lifecycle } from '../options';

/** Kafka plan → the exact arguments of every topic and ACL. Pure; keys come from role and level. */

export interface KafkaTopicChild {
  key: string;
  role: KafkaTopicSpec['role'];
  level?: number;
  lifecycle: Lifecycle;
  args: { name: string; partitions: number; replicationFactor: number; config: Record<string, string> };
}

export type KafkaAclOperation = KafkaPlan['consumerAcls'][number]['operations'][number];

export interface KafkaAclChild {
  key: string;
  lifecycle: Lifecycle;
  args: {
    aclResourceName: string;
    aclResourceType: 'Topic' | 'Group';
    aclPrincipal: string;
    aclHost: string;
    aclOperation: KafkaAclOperation;
    aclPermissionType: 'Allow';
    resourcePatternTypeFilter: 'Literal';
  };
}

/** Any host: Kafka ACLs match the client's IP, which a consumer in a cluster does not keep. */
export const KAFKA_ACL_ANY_HOST = '*';

function topicKey(topic: Pick<KafkaTopicSpec, 'role' | 'level'>): string {
  switch (topic.role) {
    case 'source':
      return 'source-topic';
    case 'dead-letter':
      return 'dlt';
    case 'retry':
      if (topic.level === undefined)
        throw new TopologyError('inconsistent-plan', 'a retry topic has no level');
      return `retry-topic-${topic.level}`;
  }
}

export function kafkaTopicSpecs(plan: KafkaPlan): KafkaTopicChild[] {
  const topics = plan.topics
    .filter((topic) => topic.declare)
    .map(
      (topic): KafkaTopicChild => ({
        key: topicKey(topic),
        role: topic.role,
        ...(topic.level === undefined ? {} : { level: topic.level }),
        // A retry topic disappears when maxAttempts drops; the source and the DLT never do.
        lifecycle: topic.role === 'retry' ? 'retry-level' : 'lasting',
        args: {
          name: topic.name,
          partitions: topic.partitions,
          replicationFactor: topic.replicationFactor,
          config: { ...topic.config },
        },
      }),
    );
  assertUniqueKeys(topics);
  return topics;
}

/** `User:billing`: Kafka principals are `<type>:<name>`. */
export function validateKafkaPrincipal(principal: string): void {
  if (!/^[A-Za-z]+:.+$/.test(principal)) {
    throw new TopologyError(
      'invalid-option',
      `args.consumerPrincipal is "${principal}": expected <type>:<name>, e.g. "User:billing"`,
    );
  }
}

export function kafkaAclSpecs(
  plan: KafkaPlan,
  principal: string,
  host = KAFKA_ACL_ANY_HOST,
): KafkaAclChild[] {
  validateKafkaPrincipal(principal);
  const keys = new Map<string, string>([
    [`topic:${plan.sourceTopic}`, 'source-topic'],
    [`topic:${plan.deadLetterTopic}`, 'dlt'],
    [`group:${plan.consumerGroup}`, 'group'],
    [`group:${plan.retryConsumerGroup}`, 'retry-group'],
  ]);
  for (const topic of plan.topics) keys.set(`topic:${topic.name}`, topicKey(topic));
  const acls = plan.consumerAcls.flatMap((acl) => {
    const resourceKey = keys.get(`${acl.resource}:${acl.name}`);
    if (!resourceKey) {
      throw new TopologyError(
        'inconsistent-plan',
        `an ACL names ${acl.resource} "${acl.name}", which the plan lacks`,
      );
    }
    return acl.operations.map(
      (operation): KafkaAclChild => ({
        key: `${resourceKey}-acl-${operation.toLowerCase()}`,
        lifecycle: 'plain',
        args: {
          aclResourceName: acl.name,
          aclResourceType: acl.resource === 'topic' ? 'Topic' : 'Group',
          aclPrincipal: principal,
          aclHost: host,
          aclOperation: operation,
          aclPermissionType: 'Allow',
          resourcePatternTypeFilter: 'Literal',
        },
      }),
    );
  });
  assertUniqueKeys(acls);
  return acls;
}
