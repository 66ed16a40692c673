import type { KafkaPlan, KafkaTopicSpec } from '../../policy';
import { assertUniqueKeys, identityOf } from '../children';
import { TopologyError } from '../errors';
import type { Lifecycle } from '../options';

/**
 * Kafka plan → the exact arguments of every topic and ACL, in the order they are created, and the
 * target's identity. Pure; keys come from role and level.
 */

export interface KafkaTopicChild {
  key: string;
  role: KafkaTopicSpec['role'];
  level?: number;
  lifecycle: Lifecycle;
  /**
   * Topics created (and updated) first. Retry topics come after the lasting ones: a change that
   * would recreate a topic (fewer partitions) is refused at the protected dead-letter or source
   * topic before any retry topic is touched.
   */
  after: string[];
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
    resourcePatternTypeFilter: 'Literal' | 'Prefixed';
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

/** Topics in creation order: the source (when declared), the dead-letter topic, then the retry topics. */
export function kafkaTopicSpecs(plan: KafkaPlan): KafkaTopicChild[] {
  const declared = plan.topics.filter((topic) => topic.declare);
  const lastingKeys = declared.filter((topic) => topic.role !== 'retry').map(topicKey);
  const rank = { source: 0, 'dead-letter': 1, retry: 2 } as const;
  const topics = [...declared]
    .sort((a, b) => rank[a.role] - rank[b.role])
    .map(
      (topic): KafkaTopicChild => ({
        key: topicKey(topic),
        role: topic.role,
        ...(topic.level === undefined ? {} : { level: topic.level }),
        // A retry topic disappears when maxAttempts drops; the source and the DLT never do.
        lifecycle: topic.role === 'retry' ? 'retry-level' : 'lasting',
        after: topic.role === 'retry' ? lastingKeys : [],
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

/**
 * What would replace a lasting topic: its name (the provider recreates a topic on a new name, and
 * on fewer partitions, which no trigger can see; the replication factor changes in place on
 * Kafka 2.4+, Mongey/kafka v0.13.1), and which lasting topics exist.
 */
export function kafkaIdentity(topics: readonly KafkaTopicChild[]): Record<string, unknown> {
  return identityOf(
    topics
      .filter((topic) => topic.lifecycle === 'lasting')
      .map((topic) => ({ key: topic.key, replacedBy: { name: topic.args.name } })),
  );
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
    [`literal:topic:${plan.sourceTopic}`, 'source-topic'],
    [`literal:topic:${plan.deadLetterTopic}`, 'dlt'],
    [`literal:group:${plan.consumerGroup}`, 'group'],
    [`literal:group:${plan.retryConsumerGroup}`, 'retry-group'],
  ]);
  for (const topic of plan.topics) keys.set(`literal:topic:${topic.name}`, topicKey(topic));
  // A prefixed ACL is the retry topics': it covers all of them and no other topic the plan names.
  const retryTopics = plan.topics.filter((topic) => topic.role === 'retry').map((topic) => topic.name);
  const named = new Set([...plan.topics.map((topic) => topic.name), plan.sourceTopic, plan.deadLetterTopic]);
  for (const acl of plan.consumerAcls) {
    if (acl.pattern !== 'prefixed' || acl.resource !== 'topic' || acl.name === '') continue;
    const covered = [...named].filter((name) => name.startsWith(acl.name));
    if (
      retryTopics.length > 0 &&
      covered.length === retryTopics.length &&
      retryTopics.every((name) => covered.includes(name))
    )
      keys.set(`prefixed:topic:${acl.name}`, 'retry-topics');
  }
  // One ACL per operation the plan lists, no more and no fewer: the plan is what reviewers read.
  const acls = plan.consumerAcls.flatMap((acl) => {
    const resourceKey = keys.get(`${acl.pattern}:${acl.resource}:${acl.name}`);
    if (!resourceKey) {
      throw new TopologyError(
        'inconsistent-plan',
        acl.pattern === 'prefixed'
          ? `a prefixed ACL names ${acl.resource}s "${acl.name}*", which are not exactly the plan's retry topics`
          : `an ACL names ${acl.resource} "${acl.name}", which the plan lacks`,
      );
    }
    return acl.operations.map(
      (operation): KafkaAclChild => ({
        key: `${resourceKey}-acl-${operation.toLowerCase()}`,
        // The retry topics' ACLs stay as long as a kept retry topic may: with the retry levels.
        lifecycle: acl.pattern === 'prefixed' ? 'retry-level' : 'plain',
        args: {
          aclResourceName: acl.name,
          aclResourceType: acl.resource === 'topic' ? 'Topic' : 'Group',
          aclPrincipal: principal,
          aclHost: host,
          aclOperation: operation,
          aclPermissionType: 'Allow',
          resourcePatternTypeFilter: acl.pattern === 'prefixed' ? 'Prefixed' : 'Literal',
        },
      }),
    );
  });
  assertUniqueKeys(acls);
  return acls;
}
