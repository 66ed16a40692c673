import type { Consumer } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { CHAIN_ASSIGNER_NAME, chainAssigner } from '../../../runtime/kafka/chain-assigner';
import { Harness, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * The chain assigner on the real broker: KafkaJS consumers of one group, subscribed to the source
 * and every retry topic of a plan, each end up with whole chains (partition p of every topic).
 * KafkaJS here whatever KAFKA_CLIENT says: the Confluent client takes librdkafka's `range`.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface Joined {
  protocol: string;
  assignment: Record<string, number[]>;
}

describe('the chain assigner on a real broker', () => {
  it('gives each of 2 members whole chains of 3 partitions over 4 topics, and every chain to one', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('assigner'))).open();
    const target = harness.target;
    const chain = target.topics.filter((topic) => topic.role !== 'dead-letter').map((topic) => topic.name);
    expect(chain.length).toBeGreaterThan(2);
    const group = `${target.consumerGroup}.assigner`;

    const joined = new Map<Consumer, Joined>();
    const members: Consumer[] = [];
    for (let i = 0; i < 2; i++) {
      const consumer = await harness.consumer(group, { partitionAssigners: [chainAssigner] });
      consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
        joined.set(consumer, {
          protocol: payload.groupProtocol,
          assignment: payload.memberAssignment,
        });
      });
      await consumer.subscribe({ topics: chain });
      await consumer.run({ eachMessage: async () => {} });
      members.push(consumer);
    }
    // Both members in the group's latest assignment: every partition of the chain topics taken once.
    const taken = () =>
      [...joined.values()].flatMap(({ assignment }) =>
        Object.entries(assignment).flatMap(([topic, ids]) => ids.map((p) => `${topic}[${p}]`)),
      );
    await waitFor(
      () =>
        joined.size === 2 &&
        new Set(taken()).size === chain.length * 3 &&
        taken().length === chain.length * 3,
      60_000,
      'both members in one assignment',
    );

    const owners = new Map<number, Consumer>();
    for (const [consumer, { protocol, assignment }] of joined) {
      expect(protocol).toBe(CHAIN_ASSIGNER_NAME);
      const numbers = new Set(Object.values(assignment).flat());
      expect(numbers.size).toBeGreaterThan(0);
      for (const p of numbers) {
        // Partition p of every topic of the chain, on this member.
        for (const topic of chain) expect(assignment[topic]).toContain(p);
        expect(owners.get(p)).toBeUndefined();
        owners.set(p, consumer);
      }
    }
    expect([...owners.keys()].sort()).toEqual([0, 1, 2]);
  }, 90_000);
});
