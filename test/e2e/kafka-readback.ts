import { ConfigResourceTypes } from 'kafkajs';
import type { KafkaPlan } from '../../policy';
import { kafka } from '../integration/kafka/support';

/** What the Kafka admin client reports about a plan's topics, in the shape `plannedTopics` gives. */

export interface TopicReadback {
  name: string;
  partitions: number;
  replicationFactor: number;
  /** Only the keys the plan sets. */
  config: Record<string, string>;
}

export function plannedTopics(target: KafkaPlan): Array<TopicReadback | string> {
  return target.topics
    .filter((topic) => topic.declare)
    .map(({ name, partitions, replicationFactor, config }) => ({
      name,
      partitions,
      replicationFactor,
      config,
    }));
}

/** Each declared topic: partition count, replicas per partition, the planned config keys; or "<name> is missing". */
export async function readTopics(target: KafkaPlan): Promise<Array<TopicReadback | string>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const present = new Set(await admin.listTopics());
    const out: Array<TopicReadback | string> = [];
    for (const spec of target.topics.filter((topic) => topic.declare)) {
      if (!present.has(spec.name)) {
        out.push(`${spec.name} is missing`);
        continue;
      }
      const { topics } = await admin.fetchTopicMetadata({ topics: [spec.name] });
      const partitions = topics[0]?.partitions ?? [];
      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: spec.name, configNames: Object.keys(spec.config) },
        ],
      });
      const entries = described.resources[0]?.configEntries ?? [];
      out.push({
        name: spec.name,
        partitions: partitions.length,
        replicationFactor: Math.max(0, ...partitions.map((partition) => partition.replicas.length)),
        config: Object.fromEntries(entries.map((entry) => [entry.configName, entry.configValue])),
      });
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

/** The plan's topics the broker still lists. */
export async function kafkaLeftovers(target: KafkaPlan): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const present = new Set(await admin.listTopics());
    return target.topics.map((topic) => topic.name).filter((name) => present.has(name));
  } finally {
    await admin.disconnect();
  }
}
