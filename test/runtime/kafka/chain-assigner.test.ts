import { AssignerProtocol, type PartitionAssigner, PartitionAssigners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import {
  chainAssigner,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
} from '../../../runtime/kafka/chain-assigner';

/**
 * The range assigner that keeps a retry chain (partition p of the source and of every retry
 * topic) on one member, against KafkaJS's own protocol code and its round-robin assigner.
 */

// Typed against the real SDK: KafkaJS takes it in `partitionAssigners`.
const typed: PartitionAssigner = chainAssigner;

const TOPICS = ['orders', 'billing.retry.1', 'billing.retry.2'];

/** A KafkaJS cluster as the assigner reads it: every topic with `count` partitions. */
function clusterOf(count: number) {
  const partitions = Array.from({ length: count }, (_, partitionId) => ({ partitionId }));
  return {
    findTopicPartitionMetadata: (topic: string) => (TOPICS.includes(topic) ? partitions : []),
  };
}

/** Runs a KafkaJS assigner for `ids` members subscribed to `subscriptions` (default: all topics). */
async function assign(
  assigner: PartitionAssigner,
  count: number,
  ids: string[],
  subscriptions: Record<string, string[]> = {},
): Promise<Map<string, Record<string, number[]>>> {
  // biome-ignore lint/suspicious/noExplicitAny: the assigner reads findTopicPartitionMetadata only
  const made = assigner({ cluster: clusterOf(count) as any, groupId: 'billing', logger: undefined as any });
  const members = ids.map((memberId) => ({
    memberId,
    memberMetadata: made.protocol({ topics: subscriptions[memberId] ?? TOPICS }).metadata,
  }));
  const result = await made.assign({ members, topics: TOPICS });
  return new Map(
    result.map(({ memberId, memberAssignment }) => [
      memberId,
      AssignerProtocol.MemberAssignment.decode(memberAssignment)?.assignment ?? {},
    ]),
  );
}

/** The chains a member got whole, and those it got only part of. */
function chainsOf(assignment: Record<string, number[]>) {
  const numbers = new Set(Object.values(assignment).flat());
  const whole = [...numbers].filter((p) => TOPICS.every((topic) => assignment[topic]?.includes(p)));
  return { whole: whole.sort((a, b) => a - b), split: [...numbers].filter((p) => !whole.includes(p)) };
}

describe('the chain assigner (Kafka range assignment for KafkaJS)', () => {
  it('encodes the subscription and the assignment as KafkaJS decodes them (consumer protocol v0)', () => {
    expect(AssignerProtocol.MemberMetadata.decode(encodeSubscription(TOPICS))).toEqual({
      version: 0,
      topics: TOPICS,
      userData: Buffer.alloc(0),
    });
    expect(
      decodeSubscription(
        AssignerProtocol.MemberMetadata.encode({ version: 1, topics: TOPICS, userData: Buffer.alloc(0) }),
      ),
    ).toEqual(TOPICS);
    const assignment = new Map([
      ['orders', [0, 1]],
      ['billing.retry.1', [0, 1]],
    ]);
    expect(AssignerProtocol.MemberAssignment.decode(encodeAssignment(assignment))).toEqual({
      version: 0,
      assignment: { orders: [0, 1], 'billing.retry.1': [0, 1] },
      userData: Buffer.alloc(0),
    });
  });

  it.each([
    { members: 1, partitions: 6 },
    { members: 3, partitions: 6 },
    { members: 4, partitions: 6 },
    { members: 5, partitions: 3 },
  ])(
    'gives every chain whole to one member: $members members, $partitions partitions',
    async ({ members, partitions }) => {
      const ids = Array.from({ length: members }, (_, i) => `member-${i}`);
      const result = await assign(typed, partitions, ids);
      const owners = new Map<number, string>();
      for (const [memberId, assignment] of result) {
        const { whole, split } = chainsOf(assignment);
        expect(split).toEqual([]);
        for (const p of whole) {
          expect(owners.has(p)).toBe(false);
          owners.set(p, memberId);
        }
      }
      expect([...owners.keys()].sort((a, b) => a - b)).toEqual(
        Array.from({ length: partitions }, (_, p) => p),
      );
      // As even as ranges go: no member holds two chains more than another.
      const counts = ids.map((id) => chainsOf(result.get(id) ?? {}).whole.length);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    },
  );

  it('gives a topic only to the members that subscribe to it', async () => {
    const result = await assign(typed, 6, ['a', 'b', 'c'], { c: ['orders'] });
    expect(result.get('c')).toEqual({ orders: [4, 5] });
    expect(result.get('a')?.['billing.retry.1']).toEqual([0, 1, 2]);
    expect(result.get('b')?.['billing.retry.1']).toEqual([3, 4, 5]);
  });

  it("is needed: KafkaJS's round-robin splits chains when the member count does not divide the partitions", async () => {
    const ids = ['member-0', 'member-1', 'member-2', 'member-3'];
    const result = await assign(PartitionAssigners.roundRobin, 6, ids);
    const split = [...result.values()].flatMap((assignment) => chainsOf(assignment).split);
    expect(split.length).toBeGreaterThan(0);
  });
});
