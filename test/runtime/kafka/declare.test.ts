import { describe, expect, it } from 'vitest';
import { type AdminLike, declareKafkaTopology } from '../../../runtime/kafka';
import { billingPlan } from '../plan-fixture';

/**
 * An admin whose brokers learn of new topics a few metadata reads after the controller created
 * them, as a loaded KRaft cluster does. Its createTopics takes `waitForLeaders` as each real
 * client does:
 * - 'kafkajs' (2.2.4): waits unless the option is false, and then fails: it retries only
 *   LEADER_NOT_AVAILABLE, and a broker that does not list the topic yet answers
 *   UNKNOWN_TOPIC_OR_PARTITION;
 * - 'confluent' (1.10.1): never waits, and refuses the option (ERR__NOT_IMPLEMENTED, -170) before
 *   it creates anything.
 */
class LaggingAdmin implements AdminLike {
  readonly created = new Map<string, { partitions: number; readsUntilVisible: number }>();
  constructor(
    private readonly lag: number,
    private readonly client: 'kafkajs' | 'confluent' = 'kafkajs',
  ) {}

  private visible(topic: string): boolean {
    const entry = this.created.get(topic);
    if (!entry) return false;
    if (entry.readsUntilVisible > 0) {
      entry.readsUntilVisible--;
      return false;
    }
    return true;
  }

  async listTopics(): Promise<string[]> {
    return [...this.created.keys()].filter((topic) => this.visible(topic));
  }

  async createTopics(options: Parameters<AdminLike['createTopics']>[0]): Promise<boolean> {
    if (this.client === 'confluent' && Object.hasOwn(options, 'waitForLeaders'))
      throw Object.assign(new Error('waitForLeaders is not yet implemented.'), { code: -170 });
    for (const spec of options.topics)
      this.created.set(spec.topic, { partitions: spec.numPartitions, readsUntilVisible: this.lag });
    const waits = this.client === 'kafkajs' && (options.waitForLeaders ?? true);
    if (waits && options.topics.some((spec) => !this.visible(spec.topic)))
      throw Object.assign(new Error('This server does not host this topic-partition'), {
        type: 'UNKNOWN_TOPIC_OR_PARTITION',
      });
    return true;
  }

  async fetchOffsets(): ReturnType<AdminLike['fetchOffsets']> {
    return [];
  }

  async fetchTopicOffsets(topic: string): ReturnType<AdminLike['fetchTopicOffsets']> {
    const entry = this.created.get(topic);
    if (!entry || !this.visible(topic)) throw new Error('This server does not host this topic-partition');
    return Array.from({ length: entry.partitions }, (_, partition) => ({ partition, high: '0', low: '0' }));
  }
}

describe('declareKafkaTopology', () => {
  const plan = billingPlan();
  const topics = (plan.targets.kafka?.topics ?? []).filter((spec) => spec.declare).map((spec) => spec.name);

  it.each(['kafkajs', 'confluent'] as const)(
    '%s: creates the missing topics when the brokers list them only a few reads later',
    async (client) => {
      const admin = new LaggingAdmin(3, client);
      const declared = await declareKafkaTopology(admin, plan);
      expect(declared.created).toEqual(topics);
      expect(topics.length).toBeGreaterThan(1);
      // Visible on return: a consumer subscribing next finds every one.
      expect((await admin.listTopics()).sort()).toEqual([...topics].sort());
    },
  );

  it('creates nothing the second time', async () => {
    const admin = new LaggingAdmin(1);
    await declareKafkaTopology(admin, plan);
    const again = await declareKafkaTopology(admin, plan);
    expect(again.created).toEqual([]);
    expect(again.existing).toEqual(topics);
  });
});
