import { AssignerProtocol } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { CHAIN_ASSIGNER_NAME } from '../../../runtime/kafka/chain-assigner';
import { Harness, kafkaPlan, uniqueName } from './support';

/**
 * Range assignment on the real broker, with the client under test (KAFKA_CLIENT): two members of
 * one group, subscribed to the source and every retry topic of a plan, each end up with whole
 * chains (partition p of every topic). KafkaJS gets runtime/kafka/chain-assigner.ts, the Confluent
 * client librdkafka's `range`; the group's state is read back from the broker either way.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Each member's assignment as the broker holds it, once the group is stable with `members`. */
async function stableAssignment(h: Harness, group: string, members: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const described = (await h.admin.describeGroups([group])).groups[0];
    if (described?.state === 'Stable' && described.members.length === members) {
      return described.members.map((member) => ({
        protocol: described.protocol,
        assignment: AssignerProtocol.MemberAssignment.decode(member.memberAssignment)?.assignment ?? {},
      }));
    }
    if (Date.now() > deadline) throw new Error(`group ${group} not stable with ${members} members in 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('range assignment keeps a retry chain on one member', () => {
  it('gives each of 2 members whole chains of 3 partitions over 4 topics, and every chain to one', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('assigner'))).open();
    const target = harness.target;
    const chain = target.topics.filter((topic) => topic.role !== 'dead-letter').map((topic) => topic.name);
    expect(chain.length).toBeGreaterThan(2);
    const group = `${target.consumerGroup}.assigner`;
    for (let i = 0; i < 2; i++) {
      const consumer = await harness.clientConsumer(group, { chainAssignment: true, fromBeginning: true });
      await consumer.subscribe({ topics: chain });
      await consumer.run({ eachMessage: async () => {} });
    }

    const members = await stableAssignment(harness, group, 2);
    const owners = new Map<number, number>();
    members.forEach(({ protocol, assignment }, member) => {
      expect(protocol).toBe(CHAIN_ASSIGNER_NAME);
      const numbers = new Set(Object.values(assignment).flat());
      expect(numbers.size).toBeGreaterThan(0);
      for (const p of numbers) {
        // Partition p of every topic of the chain, on this member.
        for (const topic of chain) expect(assignment[topic]).toContain(p);
        expect(owners.get(p)).toBeUndefined();
        owners.set(p, member);
      }
    });
    expect([...owners.keys()].sort()).toEqual([0, 1, 2]);
  }, 90_000);
});
