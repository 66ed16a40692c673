import {
  type Admin,
  type Consumer,
  type ConsumerRunConfig,
  type DeleteGroupsResult,
  type IHeaders,
  KafkaJSDeleteGroupsError,
  KafkaJSProtocolError,
  type KafkaMessage,
  type TopicPartitionOffsetAndMetadata,
} from 'kafkajs';

/** The admin calls the dead-letter commands make, with KafkaJS's own signatures. */
export type DeadLetterAdminFake = Pick<Admin, 'fetchTopicOffsets' | 'fetchOffsets' | 'deleteGroups'>;
/** The consumer calls a dead-letter pass makes, with KafkaJS's own signatures. */
export type DeadLetterConsumerFake = Pick<
  Consumer,
  'connect' | 'disconnect' | 'subscribe' | 'run' | 'pause' | 'commitOffsets'
>;

function protocolError(type: string, code: number, message: string): KafkaJSProtocolError {
  // KafkaJS builds these from the broker's error table: an error carrying its type and code.
  return new KafkaJSProtocolError(Object.assign(new Error(message), { type, code, retriable: false }));
}

/**
 * A dead-letter topic on an in-memory broker, for the Kafka dead-letter commands: the admin and
 * the consumers they are given, typed as KafkaJS's, and a log of the calls that matter. Groups
 * behave as the broker's do: one exists from its first join until it is deleted, and a delete
 * fails while a member is still in it (NON_EMPTY_GROUP) or when it does not exist
 * (GROUP_ID_NOT_FOUND), rejected the way KafkaJS rejects it.
 *
 * A consumer hands over each partition's records in offset order, but the partitions
 * interleave as `pick` says (by default at random: on a broker it depends on fetch timing).
 */
export class FakeDeadLetterTopic {
  readonly log: string[] = [];
  /** Groups the broker knows. */
  readonly groups = new Set<string>();
  /** Groups with a connected member that joined. */
  private readonly members = new Map<string, number>();
  private readonly records: KafkaMessage[][];
  private readonly committed = new Map<string, Map<number, { offset: string; metadata: string | null }>>();
  /** Chooses the partition the next record comes from, among `choices` that have one. */
  pick: (choices: number) => number = (choices) => Math.floor(Math.random() * choices);
  /** deleteGroups rejects with this when set. */
  deleteFailure: unknown;
  /** A consumer's run rejects with this when set (after the group was joined). */
  runFailure: Error | undefined;
  /**
   * Once a consumer has handed over `after` records of `partition`, it reads that partition
   * again from its committed offset (or the start), as after a rebalance; once per consumer.
   */
  rewind: { partition: number; after: number } | undefined;

  constructor(
    readonly topic: string,
    partitions: number,
  ) {
    this.records = [...Array(partitions).keys()].map(() => []);
  }

  /** Appends a record to a partition; returns its dead-letter id, `partition:offset`. */
  add(partition: number, headers: IHeaders = {}, value = `record ${this.size}`): string {
    const log = this.records[partition];
    if (!log) throw new Error(`no partition ${partition}`);
    const offset = String(log.length);
    log.push({
      key: Buffer.from(`key-${partition}-${offset}`),
      value: Buffer.from(value),
      timestamp: String(Date.UTC(2026, 0, 1)),
      attributes: 0,
      offset,
      headers,
    });
    return `${partition}:${offset}`;
  }

  get size(): number {
    return this.records.reduce((sum, log) => sum + log.length, 0);
  }

  admin(): DeadLetterAdminFake {
    return {
      fetchTopicOffsets: async (topic) => {
        this.expectTopic(topic);
        return this.records.map((log, partition) => ({
          partition,
          offset: String(log.length),
          high: String(log.length),
          low: '0',
        }));
      },
      fetchOffsets: async ({ groupId, topics }) =>
        (topics ?? [this.topic]).map((topic) => {
          this.expectTopic(topic);
          const mine = this.committed.get(groupId);
          return {
            topic,
            partitions: this.records.map((_, partition) => ({
              partition,
              ...(mine?.get(partition) ?? { offset: '-1', metadata: null }),
            })),
          };
        }),
      deleteGroups: async (groupIds): Promise<DeleteGroupsResult[]> => {
        this.log.push(`delete ${groupIds.join(',')}`);
        if (this.deleteFailure !== undefined) throw this.deleteFailure;
        const failures = groupIds.flatMap((groupId) => {
          if (!this.groups.has(groupId))
            return [
              {
                groupId,
                errorCode: 69,
                error: protocolError('GROUP_ID_NOT_FOUND', 69, 'The group id was not found'),
              },
            ];
          if ((this.members.get(groupId) ?? 0) > 0)
            return [
              {
                groupId,
                errorCode: 68,
                error: protocolError('NON_EMPTY_GROUP', 68, 'The group is not empty'),
              },
            ];
          return [];
        });
        if (failures.length > 0) throw new KafkaJSDeleteGroupsError('Error in DeleteGroups', failures);
        for (const groupId of groupIds) this.groups.delete(groupId);
        return groupIds.map((groupId) => ({ groupId, errorCode: 0 }));
      },
    };
  }

  /** An unconnected consumer in `groupId`, as the commands' `consumer` option makes one. */
  consumer(groupId: string): DeadLetterConsumerFake {
    let connected = false;
    let joined = false;
    const paused = new Set<number>();
    const leave = () => {
      if (!joined) return;
      joined = false;
      this.members.set(groupId, (this.members.get(groupId) ?? 1) - 1);
    };
    return {
      connect: async () => {
        connected = true;
      },
      disconnect: async () => {
        if (!connected) return;
        connected = false;
        leave();
        this.log.push(`leave ${groupId}`);
      },
      subscribe: async (subscription) => {
        const topics = 'topics' in subscription ? subscription.topics : [subscription.topic];
        for (const each of topics) this.expectTopic(String(each));
      },
      pause: (topics) => {
        for (const each of topics) for (const partition of each.partitions ?? []) paused.add(partition);
      },
      commitOffsets: async (offsets: TopicPartitionOffsetAndMetadata[]) => {
        const mine = this.committed.get(groupId) ?? new Map();
        this.committed.set(groupId, mine);
        for (const each of offsets)
          mine.set(each.partition, { offset: each.offset, metadata: each.metadata ?? null });
      },
      run: async (config?: ConsumerRunConfig) => {
        if (!connected) throw new Error('run before connect');
        joined = true;
        this.groups.add(groupId);
        this.members.set(groupId, (this.members.get(groupId) ?? 0) + 1);
        this.log.push(`join ${groupId}`);
        if (this.runFailure) throw this.runFailure;
        const each = config?.eachMessage;
        if (!each) return;
        const from = this.committed.get(groupId);
        const start = (partition: number) => Math.max(0, Number(from?.get(partition)?.offset ?? 0));
        const positions = this.records.map((_, partition) => start(partition));
        let rewind = this.rewind;
        let handed = 0;
        // Delivered after run resolves, one at a time (partitionsConsumedConcurrently 1).
        void (async () => {
          for (;;) {
            await new Promise((resolve) => setImmediate(resolve));
            if (!joined) return;
            const ready = this.records
              .map((log, partition) => ({ log, partition }))
              .filter(
                ({ log, partition }) => !paused.has(partition) && (positions[partition] ?? 0) < log.length,
              );
            if (ready.length === 0) return;
            const chosen = ready[this.pick(ready.length)] ?? ready[0];
            if (!chosen) return;
            const offset = positions[chosen.partition] ?? 0;
            positions[chosen.partition] = offset + 1;
            if (rewind?.partition === chosen.partition && ++handed >= rewind.after) {
              positions[chosen.partition] = start(chosen.partition);
              rewind = undefined;
            }
            const message = chosen.log[offset];
            if (!message) return;
            await each({
              topic: this.topic,
              partition: chosen.partition,
              message,
              heartbeat: async () => {},
              pause: () => () => {},
            });
          }
        })();
      },
    };
  }

  private expectTopic(topic: string): void {
    if (topic !== this.topic) throw new Error(`unknown topic ${topic}`);
  }
}
