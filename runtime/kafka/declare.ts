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
 *
 * `options.client` is no longer read (both clients are driven the same way); it stays so that
 * existing calls compile.
 */
export async function declareKafkaTopology(
  admin: AdminLike,
  plan: RetryPlan,
  _options: { client?: KafkaClient } = {},
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
    // Resolves once the controller has the topics; untilVisible waits for the rest.
    await createWithoutLeaderWait(admin, {
      topics: missing.map((spec) => ({
        topic: spec.name,
        numPartitions: spec.partitions,
        replicationFactor: spec.replicationFactor,
        configEntries: Object.entries(spec.config).map(([name, value]) => ({ name, value })),
      })),
    });
    await untilVisible(
      admin,
      missing.map((spec) => spec.name),
      expected,
    );
  }
  return {
    created: missing.map((spec) => spec.name),
    existing: kafka.topics.filter((spec) => present.has(spec.name)).map((spec) => spec.name),
  };
}

/** The Confluent client's code for an option it does not implement (ERR__NOT_IMPLEMENTED). */
const NOT_IMPLEMENTED = -170;

/**
 * createTopics without KafkaJS's wait for leaders. KafkaJS (2.2.4) waits unless told not to, and
 * while waiting it retries only LEADER_NOT_AVAILABLE: a broker that does not list the new topics
 * yet answers UNKNOWN_TOPIC_OR_PARTITION (seen on a loaded CI machine) and fails a create that
 * worked. The Confluent client (1.10.1) does not wait, and refuses the option before it sends
 * anything, so it is asked again without it.
 */
async function createWithoutLeaderWait(
  admin: AdminLike,
  request: Omit<Parameters<AdminLike['createTopics']>[0], 'waitForLeaders'>,
): Promise<void> {
  try {
    await admin.createTopics({ ...request, waitForLeaders: false });
  } catch (error) {
    if ((error as { code?: unknown } | undefined)?.code !== NOT_IMPLEMENTED) throw error;
    await admin.createTopics(request);
  }
}

/** How long new topics may take to show up with every partition. */
const VISIBLE_WITHIN_MS = 30_000;
const VISIBLE_POLL_MS = 100;

/**
 * createTopics (KafkaJS 2.2.4, the Confluent client 1.10.1) resolves before the new topics are in
 * every broker's metadata, and a ListOffsets right after can meet NOT_LEADER_OR_FOLLOWER on a
 * loaded broker (Kafka 4.4.0, KRaft): a listTopics, a subscription or a produce right after can
 * miss them. Waits until every partition of each reports its
 * offsets, so a second declare sees them and a consumer subscribing next finds them.
 */
async function untilVisible(admin: AdminLike, topics: string[], partitions: number | undefined) {
  const deadline = Date.now() + VISIBLE_WITHIN_MS;
  for (const topic of topics) {
    for (;;) {
      const seen = await admin.fetchTopicOffsets(topic).catch(() => []);
      const listed = (await admin.listTopics().catch((): string[] => [])).includes(topic);
      if (listed && seen.length > 0 && (partitions === undefined || seen.length === partitions)) break;
      if (Date.now() > deadline) {
        throw new KafkaRetryError(
          'topics-not-visible',
          `${topic} was created but not visible after ${VISIBLE_WITHIN_MS} ms`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, VISIBLE_POLL_MS));
    }
  }
}
