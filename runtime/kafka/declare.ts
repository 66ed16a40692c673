import type { RetryPlan } from '../../policy/plan/types';
import { targetRules } from '../rules';
import type { AdminLike, KafkaClient } from './contract';
import { KafkaRetryError } from './errors';

export interface DeclaredTopology {
  created: string[];
  existing: string[];
}

/**
 * Creates exactly the plan's topics that are missing, for development and tests (Pulumi creates
 * them in production from the same specs). Idempotent: a second call creates nothing. An
 * existing topic is never altered; its config is Pulumi's business. Its partition count is
 * checked, though, source topic included: the runtime produces each copy to the source
 * partition's number, which must exist on every topic of the chain.
 */
export async function declareKafkaTopology(
  admin: AdminLike,
  plan: RetryPlan,
  options: { client?: KafkaClient } = {},
): Promise<DeclaredTopology> {
  const kafka = targetRules(plan, 'kafka');
  const present = new Set(await admin.listTopics());
  const chain = kafka.topics.map((spec) => spec.name);
  const known = [...new Set([kafka.sourceTopic, ...chain])].filter((name) => present.has(name));
  // Every topic of a plan has the source's partition count (policy/plan/kafka.ts).
  const expected = kafka.topics[0]?.partitions;
  for (const topic of known) {
    const partitions = (await admin.fetchTopicOffsets(topic)).length;
    if (expected !== undefined && partitions !== expected) {
      throw new KafkaRetryError(
        'partition-count-mismatch',
        `${topic} has ${partitions} partitions; the plan's chain needs ${expected}`,
      );
    }
  }
  const missing = kafka.topics.filter((spec) => spec.declare && !present.has(spec.name));
  if (missing.length > 0) {
    await admin.createTopics({
      // The Confluent client does not take waitForLeaders; KafkaJS should wait, so a produce
      // right after does not meet a partition without a leader.
      ...(options.client === 'confluent' ? {} : { waitForLeaders: true }),
      topics: missing.map((spec) => ({
        topic: spec.name,
        numPartitions: spec.partitions,
        replicationFactor: spec.replicationFactor,
        configEntries: Object.entries(spec.config).map(([name, value]) => ({ name, value })),
      })),
    });
  }
  return {
    created: missing.map((spec) => spec.name),
    existing: kafka.topics.filter((spec) => present.has(spec.name)).map((spec) => spec.name),
  };
}
