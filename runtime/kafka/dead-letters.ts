import { randomUUID } from 'node:crypto';
import type { KafkaPlan, RetryPlan } from '../../policy/plan/types';
import type { Clock, Random } from '../clock';
import type { Claim, DeadLetterBroker, ReplayCopyOptions, Settled } from '../dead-letters/broker';
import { DeadLetterError } from '../dead-letters/errors';
import { replayGroupOf, requireDeadLetters } from '../dead-letters/locations';
import { replayedHeaders } from '../dead-letters/metadata';
import { type DeadLetters, deadLetterCommands } from '../dead-letters/tool';
import type { DeadLetter } from '../dead-letters/types';
import type { KafkaClient, OutgoingMessage, ProducerLike } from './contract';
import { type DeadLetterConsumer, DeadLetterPass, inLogOrder, type PassItem } from './dead-letter-pass';
import { readKafkaDeadLetter } from './dead-letter-read';
import { headerText, KAFKA_HEADERS, keptHeaders, originOf, retryCopyHeaders } from './headers';
import { produceCopy } from './produce';
import { isDone, type PartitionProgress, readProgress, withDone } from './replay-progress';

/** A replayed copy must be on every in-sync replica before its dead letter is marked done. */
const REPLAY_ACKS = -1;

export interface KafkaDeadLetterAdmin {
  fetchTopicOffsets(topic: string): Promise<Array<{ partition: number; high: string; low: string }>>;
  fetchOffsets(options: { groupId: string; topics: string[] }): Promise<
    Array<{
      topic: string;
      partitions: Array<{ partition: number; offset: string; metadata?: string | null }>;
    }>
  >;
  /** Removes the throw-away group each read-only pass joins, once the pass is over. */
  deleteGroups(groupIds: string[]): Promise<unknown>;
}

export interface KafkaDeadLetterOptions {
  admin: KafkaDeadLetterAdmin;
  /** A connected producer (acks -1 for every copy; with the Confluent client, configure acks -1). */
  producer: ProducerLike;
  /**
   * Makes an unconnected consumer in the group it is given. With the Confluent client configure it
   * with `autoCommit: false` and `fromBeginning: true` (KafkaJS takes them per call).
   */
  consumer: (groupId: string) => DeadLetterConsumer;
  client?: KafkaClient;
  /** A pass ends after this long without a record before the ends it read at its start. */
  idleMs?: number;
  clock?: Clock;
  random?: Random;
  /**
   * Told what went wrong without failing the command: a throw-away group that could not be
   * deleted. By default a process warning (RETRY_TOPOLOGY_KAFKA_GROUP_LEFT).
   */
  onWarning?: (message: string) => void;
}

const DEFAULT_IDLE_MS = 15_000;
/** The broker's error code for a group id it does not know (GROUP_ID_NOT_FOUND). */
const GROUP_ID_NOT_FOUND = 69;

function processWarning(message: string): void {
  process.emitWarning(message, { type: 'RetryTopologyWarning', code: 'RETRY_TOPOLOGY_KAFKA_GROUP_LEFT' });
}

interface GroupFailure {
  groupId?: string;
  errorCode?: number;
  error?: { code?: number; type?: string; message?: string };
}

/** Both clients reject a delete with the groups that failed and each one's error. */
function groupFailures(error: unknown): GroupFailure[] {
  const groups = (error as { groups?: unknown } | undefined)?.groups;
  return Array.isArray(groups) ? (groups as GroupFailure[]) : [];
}

/** A group the broker does not know is gone already (a pass that failed before it joined made none). */
function alreadyGone(error: unknown): boolean {
  const failures = groupFailures(error);
  return (
    failures.length > 0 &&
    failures.every((each) => (each.errorCode ?? each.error?.code) === GROUP_ID_NOT_FOUND)
  );
}

function reasonOf(error: unknown): string {
  const named = groupFailures(error)
    .map((each) => each.error?.message ?? each.error?.type ?? `error code ${each.errorCode}`)
    .join('; ');
  return named || ((error as Error | undefined)?.message ?? String(error));
}

/**
 * The dead-letter topic of a plan's Kafka target. Kafka keeps every record, so a replayed or
 * purged one is marked done in the replay group's committed offset and its metadata
 * (replay-progress.ts); `list` counts those apart. A replay produces the copy with acks -1 and
 * only then commits: a crash in between replays that record again (a duplicate), never skips it.
 * One record at a time, in order per partition, so the source topic gets them in their order.
 * A read (`list`, `show`, the selection of a replay or purge) gives the records by partition,
 * then offset: the same order on every run while nothing new arrives.
 */
export function kafkaDeadLetters(plan: RetryPlan, options: KafkaDeadLetterOptions): DeadLetters {
  requireDeadLetters(plan, 'kafka');
  const kafka = plan.targets.kafka as KafkaPlan;
  const topic = kafka.deadLetterTopic;
  const group = replayGroupOf(topic);
  const client = options.client ?? 'kafkajs';
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const warn = options.onWarning ?? processWarning;
  const partitions = kafka.topics.find(
    (spec) => spec.name === kafka.sourceTopic || spec.role === 'dead-letter',
  )?.partitions;

  async function progressByPartition(): Promise<Map<number, PartitionProgress>> {
    const [found] = await options.admin.fetchOffsets({ groupId: group, topics: [topic] });
    return new Map(
      (found?.partitions ?? []).map((each) => [each.partition, readProgress(each.offset, each.metadata)]),
    );
  }

  async function ends(from: (partition: number, low: number) => number) {
    const offsets = await options.admin.fetchTopicOffsets(topic);
    return new Map(
      offsets.map((each) => [
        each.partition,
        { from: from(each.partition, Number(each.low)), end: Number(each.high) },
      ]),
    );
  }

  /**
   * Deletes a read-only pass's group once its consumer has left. A group left behind holds no
   * offsets and changes no result, so a failed delete is worth a warning, not a failed command.
   */
  async function deleteGroup(groupId: string): Promise<void> {
    try {
      await options.admin.deleteGroups([groupId]);
    } catch (error) {
      if (alreadyGone(error)) return;
      warn(
        `the consumer group ${groupId}, which this command read the dead letters in, could not be deleted (${reasonOf(error)}); it holds no offsets: delete it with kafka-consumer-groups.sh --delete --group ${groupId}`,
      );
    }
  }

  const broker: DeadLetterBroker = {
    locations: [topic],
    replayTo: kafka.sourceTopic,
    maxInFlight: 1,
    async *browse() {
      const progress = await progressByPartition();
      const groupId = `${group}.browse.${randomUUID()}`;
      const pass = new DeadLetterPass({
        consumer: options.consumer(groupId),
        topic,
        client,
        ranges: await ends((_, low) => low),
        waitForSettle: false,
        idleMs,
      });
      // Everything up to the ends taken at the start is read before the first letter goes out:
      // the pass hands the partitions over interleaved as the fetches come back, which differs
      // from run to run, so only a sort gives `show --skip` and `--max` the same letters each time.
      const read: PassItem[] = [];
      try {
        await pass.start();
        for (let item = await pass.next(); item; item = await pass.next()) read.push(item);
      } finally {
        // Also when the read failed: the group is of no use after.
        await pass.stop();
        if (pass.triedToJoin) await deleteGroup(groupId);
      }
      for (const item of inLogOrder(read)) {
        const done = progress.get(item.partition);
        yield readKafkaDeadLetter(
          topic,
          item.partition,
          item.message,
          done ? isDone(done, Number(item.message.offset)) : false,
        );
      }
    },
    async doneCounts() {
      let replayed = 0;
      let purged = 0;
      for (const each of (await progressByPartition()).values()) {
        replayed += each.replayed;
        purged += each.purged;
      }
      return { replayed, purged };
    },
    async claim() {
      const progress = await progressByPartition();
      const consumer = options.consumer(group);
      const pass = new DeadLetterPass({
        consumer,
        topic,
        client,
        ranges: await ends((partition, low) => Math.max(low, progress.get(partition)?.committed ?? 0)),
        waitForSettle: true,
        idleMs,
        skip: (partition, offset) => {
          const done = progress.get(partition);
          return done ? isDone(done, offset) : false;
        },
      });
      await pass.start();
      const held = new WeakMap<DeadLetter, PassItem>();
      let current: PassItem | undefined;

      async function markDone(
        letter: DeadLetter,
        kind: 'replayed' | 'purged',
        send?: () => Promise<void>,
      ): Promise<Settled> {
        const item = held.get(letter);
        if (!item)
          throw new DeadLetterError('invalid-option', 'that dead letter was not taken by this claim');
        const before = progress.get(item.partition) ?? readProgress(undefined, undefined);
        // Checked before the copy goes: progress that cannot be recorded must not be made.
        const next = withDone(before, Number(item.message.offset), kind, `${topic}[${item.partition}]`);
        await send?.();
        await consumer.commitOffsets([
          {
            topic,
            partition: item.partition,
            offset: String(next.progress.committed),
            metadata: next.metadata,
          },
        ]);
        progress.set(item.partition, next.progress);
        item.settle();
        return 'done';
      }

      const claim: Claim = {
        async next() {
          current?.settle(); // passed over: it stays pending
          current = await pass.next();
          if (!current) return undefined;
          const letter = readKafkaDeadLetter(topic, current.partition, current.message, false);
          held.set(letter, current);
          return letter;
        },
        replay: (letter, copy) =>
          markDone(letter, 'replayed', async () => {
            const out = replayCopy(kafka, letter, copy, partitions);
            // All in-sync replicas, whatever the policy's acks: the record is marked done next.
            await produceCopy(options.producer, client, out.topic, out.message, REPLAY_ACKS);
          }),
        remove: (letter) => markDone(letter, 'purged'),
        close: () => pass.stop(),
      };
      return claim;
    },
  };
  return deadLetterCommands(broker, options);
}

function asHeaderValues(headers: Record<string, unknown>): OutgoingMessage['headers'] {
  const out: OutgoingMessage['headers'] = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || value === null) continue;
    out[name] =
      Buffer.isBuffer(value) || typeof value === 'string' || Array.isArray(value)
        ? (value as string)
        : String(value);
  }
  return out;
}

/**
 * The copy: key and value as they were, to the partition the record first came from. The attempt
 * starts again on the source topic (the Kafka runtime reads every source record as attempt 1);
 * with --keep-attempts a record that died on attempt n > 1 goes to the retry topic that delivers
 * attempt n, due at once, so it has the attempts it had left.
 */
function replayCopy(
  kafka: KafkaPlan,
  letter: DeadLetter,
  copy: ReplayCopyOptions,
  partitions: number | undefined,
): { topic: string; message: OutgoingMessage } {
  const incoming = letter.headers as Parameters<typeof keptHeaders>[0];
  const own = Number(letter.properties.partition);
  const original = Number(headerText(incoming, KAFKA_HEADERS.originalPartition));
  const partition =
    Number.isInteger(original) && original >= 0 && (partitions === undefined || original < partitions)
      ? original
      : own;
  const attempt = letter.attempt ?? 1;
  const level = copy.keepAttempts && attempt > 1 ? kafka.levels[attempt - 2] : undefined;
  const base = level
    ? retryCopyHeaders({
        incoming,
        origin: originOf(incoming, {
          topic: kafka.sourceTopic,
          partition,
          offset: String(letter.properties.offset),
        }),
        nextAttempt: attempt,
        notBefore: copy.now,
        firstFailureAt: letter.firstFailureAt ?? copy.now,
      })
    : keptHeaders(incoming);
  const headers = replayedHeaders(base, {
    now: copy.now,
    keepAttempts: level !== undefined,
    replays: letter.replays,
  });
  return {
    topic: level ? level.destination : kafka.sourceTopic,
    message: {
      key: (letter.properties.key as Buffer | null | undefined) ?? null,
      value: letter.body,
      partition,
      headers: asHeaderValues(headers),
    },
  };
}
