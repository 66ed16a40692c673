import { ConfigResourceTypes } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { declareKafkaTopology, KafkaRetryError } from '../../../runtime/kafka';
import { Harness, kafkaPlan, uniqueName } from './support';

/** Calls `read` until it resolves, up to 30 s. */
async function waitForAsync(read: () => Promise<unknown>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await read();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.close();
});

describe('declareKafkaTopology on a real Kafka', () => {
  it('creates exactly the plan topics, with their partitions and config, and is idempotent', async () => {
    const harness = new Harness(kafkaPlan(uniqueName('declare')));
    harnesses.push(harness);
    await harness.open({ declare: false });
    // Declared with the client under test, read back with KafkaJS.
    const { admin, clientAdmin, kit, target } = harness;
    const names = target.topics.map((spec) => spec.name).sort();

    const first = await declareKafkaTopology(clientAdmin, harness.plan, { client: kit.client });
    expect(first.created.sort()).toEqual(names);
    const again = await declareKafkaTopology(clientAdmin, harness.plan, { client: kit.client });
    expect(again).toEqual({ created: [], existing: target.topics.map((spec) => spec.name) });

    const present = (await admin.listTopics()).filter((name) => name.includes(harness.plan.policy)).sort();
    expect(present).toEqual(names);
    const { topics } = await admin.fetchTopicMetadata({ topics: names });
    expect(topics.map((topic) => topic.partitions.length)).toEqual(names.map(() => 3));

    const retry = target.topics.find((spec) => spec.role === 'retry');
    if (!retry) throw new Error('no retry topic');
    const described = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        { type: ConfigResourceTypes.TOPIC, name: retry.name, configNames: Object.keys(retry.config) },
      ],
    });
    const config = Object.fromEntries(
      (described.resources[0]?.configEntries ?? []).map((entry) => [entry.configName, entry.configValue]),
    );
    expect(config).toEqual(retry.config);
  });

  it('refuses a chain whose existing topic has another partition count', async () => {
    const name = uniqueName('mismatch');
    const harness = new Harness(kafkaPlan(name, {}, { declareTopic: false }));
    harnesses.push(harness);
    await harness.open({ declare: false });
    // The source topic exists with 1 partition; the plan says 3.
    await harness.admin.createTopics({
      topics: [{ topic: harness.target.sourceTopic, numPartitions: 1, replicationFactor: 1 }],
      // KafkaJS waits for leaders by default and fails if a broker does not list the topic yet.
      waitForLeaders: false,
    });
    // Until its one partition reports its offsets (a loaded broker takes a moment).
    await waitForAsync(() => harness.admin.fetchTopicOffsets(harness.target.sourceTopic), 'the source topic');
    const error = await declareKafkaTopology(harness.clientAdmin, harness.plan, {
      client: harness.kit.client,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KafkaRetryError);
    expect((error as KafkaRetryError).code).toBe('partition-count-mismatch');
    expect((await harness.admin.listTopics()).filter((topic) => topic.includes(name))).toEqual([
      harness.target.sourceTopic,
    ]);
  });
});
