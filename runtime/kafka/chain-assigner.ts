/**
 * Kafka's range assignment as a KafkaJS partition assigner, so that one member owns a whole
 * retry chain: partition p of the source topic and partition p of every retry topic.
 *
 * A copy is always produced to its source partition's number (route.ts), and every topic of a
 * chain has the source's partition count (declareKafkaTopology refuses anything else). Range
 * assignment splits each topic's partitions into the same contiguous runs over the same sorted
 * members, so when every member subscribes to the same topics, member i gets the same partition
 * numbers of every topic: the chains, whole. KafkaJS ships only round-robin, which deals the
 * partitions of all topics in turn and so splits chains unless the member count divides the
 * partition count. The Confluent client takes `partitionAssigners: ['range']` (librdkafka's,
 * which does the same); it refuses JavaScript assigners.
 *
 * The protocol is named `range` and encoded as Kafka's consumer protocol v0, as the Java and
 * librdkafka range assignors are, so their members can share the group. KafkaJS is not loaded
 * here: the two encodings are written out below.
 */

/** The group member as KafkaJS hands it to `assign`: its id and its `protocol()` metadata. */
export interface AssignerMember {
  memberId: string;
  memberMetadata: Buffer;
}

/** What `assign` reads of the KafkaJS cluster: a topic's partitions. */
export interface AssignerCluster {
  findTopicPartitionMetadata(topic: string): Array<{ partitionId: number }>;
}

export const CHAIN_ASSIGNER_NAME = 'range';
const VERSION = 0;

/**
 * The assigner, for `kafka.consumer({ groupId, partitionAssigners: [chainAssigner] })`. Its type
 * is KafkaJS's `PartitionAssigner` (checked in test/runtime/kafka/chain-assigner.test.ts).
 */
export const chainAssigner = ({ cluster }: { cluster: AssignerCluster }) => ({
  name: CHAIN_ASSIGNER_NAME,
  version: VERSION,
  async assign({ members, topics }: { members: AssignerMember[]; topics: string[] }) {
    const subscribed = members.map((member) => ({
      memberId: member.memberId,
      topics: new Set(decodeSubscription(member.memberMetadata)),
    }));
    const partitions = new Map(
      topics.map((topic) => [
        topic,
        cluster.findTopicPartitionMetadata(topic).map((each) => each.partitionId),
      ]),
    );
    const plan = rangeAssignment(subscribed, partitions);
    return members.map(({ memberId }) => ({
      memberId,
      memberAssignment: encodeAssignment(plan.get(memberId) ?? new Map()),
    }));
  },
  protocol({ topics }: { topics: string[] }) {
    return { name: CHAIN_ASSIGNER_NAME, metadata: encodeSubscription(topics) };
  },
});

/**
 * Range assignment: for each topic, the members that subscribe to it, sorted by id, each get a
 * contiguous run of its partitions in order; the first (count mod members) get one more.
 */
export function rangeAssignment(
  members: Array<{ memberId: string; topics: ReadonlySet<string> }>,
  partitions: ReadonlyMap<string, number[]>,
): Map<string, Map<string, number[]>> {
  const plan = new Map<string, Map<string, number[]>>(members.map((m) => [m.memberId, new Map()]));
  for (const [topic, ids] of partitions) {
    const takers = members
      .filter((member) => member.topics.has(topic))
      .map((member) => member.memberId)
      .sort();
    if (takers.length === 0) continue;
    const sorted = [...ids].sort((a, b) => a - b);
    const each = Math.floor(sorted.length / takers.length);
    const extra = sorted.length % takers.length;
    let next = 0;
    takers.forEach((memberId, index) => {
      const count = each + (index < extra ? 1 : 0);
      if (count > 0) plan.get(memberId)?.set(topic, sorted.slice(next, next + count));
      next += count;
    });
  }
  return plan;
}

// Kafka's consumer protocol v0. Subscription: int16 version, [string topic], bytes user data.
// Assignment: int16 version, [string topic, [int32 partition]], bytes user data. Strings carry
// an int16 length, arrays and bytes an int32 one. Later versions only append fields, so a v1-v3
// subscription from another client reads the same up to its topics.

export function encodeSubscription(topics: string[]): Buffer {
  const parts = [int16(VERSION), int32(topics.length), ...topics.map(string), int32(0)];
  return Buffer.concat(parts);
}

export function decodeSubscription(buffer: Buffer): string[] {
  let at = 2; // the version
  const count = buffer.readInt32BE(at);
  at += 4;
  const topics: string[] = [];
  for (let i = 0; i < count; i++) {
    const length = buffer.readInt16BE(at);
    at += 2;
    topics.push(buffer.toString('utf8', at, at + length));
    at += length;
  }
  return topics;
}

export function encodeAssignment(assignment: ReadonlyMap<string, number[]>): Buffer {
  const parts = [int16(VERSION), int32(assignment.size)];
  for (const [topic, ids] of assignment) parts.push(string(topic), int32(ids.length), ...ids.map(int32));
  parts.push(int32(0));
  return Buffer.concat(parts);
}

function int16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeInt16BE(value);
  return buffer;
}

function int32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeInt32BE(value);
  return buffer;
}

function string(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  return Buffer.concat([int16(bytes.length), bytes]);
}
