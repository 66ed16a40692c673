import type { Level } from '../../policy/plan/types';
import type { HandlerRun } from '../run-handler';
import type { ConsumedMessage, ConsumerLike, EachBatchPayloadLike } from './contract';
import { callHandler, type Delivery, handled, type Reading, type Runtime, read } from './delivery';
import { DoneAhead } from './done-ahead';
import { dueAt } from './due';
import { KafkaRetryError } from './errors';
import type { PartitionGate } from './gate';
import { headerText, KAFKA_HEADERS } from './headers';
import { Limiter } from './limiter';
import type { KafkaRole } from './options';
import { type Copy, copyOf } from './route';
import { sendCopies } from './send-copies';

/**
 * The batched engine (`engine: 'batched'`), for plans that do not keep key order: a consumer
 * reads with `eachBatch`, and each batch of a topic-partition goes one way through:
 *
 * 1. read: which records run now, which this process carried out before (done-ahead.ts), and,
 *    on a retry topic, the first record not yet due, where the partition is held;
 * 2. decide: every record's handler, side by side up to `concurrency` per consumer;
 * 3. effects: each decision as an ack or a copy (the next level, or the dead letter);
 * 4. send: every copy at once, awaited together (send-copies.ts);
 * 5. commit: once, up to the first record not done;
 * 6. position: read on, or seek back and pause (not due, a refused copy, the runtime stopping);
 * 7. report: metrics and `handled` events for what was carried out.
 *
 * So a healthy record costs no commit of its own, and the commit never passes a record still
 * running or whose copy is not acknowledged: a crash anywhere before the commit leaves every
 * record of the batch to be read again (duplicates, never a loss). The engine commits plain
 * offsets: it reads no commit metadata, and writes none.
 */

/** One record of a batch, and what became of it step by step. */
interface Entry {
  d: Delivery;
  reading: Reading;
  offset: bigint;
  /** Carried out by this process in an earlier batch: not run again. */
  doneBefore: boolean;
  run?: HandlerRun;
  copy?: Copy;
  /** Its copy was refused, or the fault hook threw once it was acknowledged. */
  refused?: KafkaRetryError;
  /** Its outcome is on the broker (or needs nothing there): the commit may pass it. */
  done: boolean;
}

interface Batch {
  payload: EachBatchPayloadLike;
  heartbeatAt: number;
  /** A heartbeat said the group is rebalancing: no more records start in this batch. */
  rebalancing: boolean;
}

/** Where a retry partition waits: its first record not yet due. */
interface Hold {
  offset: string;
  dueAt: number;
}

/**
 * How often a long batch asks KafkaJS to heartbeat. KafkaJS heartbeats between batches and when
 * asked (`eachBatch` runs for as long as its slowest handler), sends one only once its own
 * interval has passed, and throws while the group rebalances. The Confluent client's is a no-op.
 */
const HEARTBEAT_EVERY_MS = 500;

export interface BatchEngineParts {
  rt: Runtime;
  consumer: ConsumerLike;
  role: KafkaRole;
  /** Retry role: the plan's level of each retry topic. */
  levels: Map<string, Level>;
  gate: PartitionGate;
  /** Handler calls at once for this consumer. */
  concurrency: number;
}

export class BatchEngine {
  private readonly limiter: Limiter;
  private readonly ahead = new Map<string, DoneAhead>();
  /** Batches under way, so that stopping can wait for their sends and commits. */
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly parts: BatchEngineParts) {
    this.limiter = new Limiter(Math.max(1, Math.floor(parts.concurrency)));
  }

  /** Handles one batch; never throws (a failed step leaves its records to be read again). */
  async onBatch(payload: EachBatchPayloadLike): Promise<void> {
    const handling = this.handle(payload);
    this.running.add(handling);
    try {
      await handling;
    } finally {
      this.running.delete(handling);
    }
  }

  /**
   * Resolves once the batches under way have sent and committed what they carried out. The
   * runtime's stop waits for it: KafkaJS's disconnect stops its runner at once, and a commit
   * made after that resolves without committing anything.
   */
  async idle(): Promise<void> {
    await Promise.all(this.running);
  }

  private async handle(payload: EachBatchPayloadLike): Promise<void> {
    const { topic, partition, messages } = payload.batch;
    const first = messages[0];
    if (!first || payload.isStale()) return;
    const { rt, gate, role } = this.parts;
    if (rt.stopping.aborted) {
      gate.park(topic, partition, first.offset);
      return;
    }
    try {
      await this.batch(payload, first);
    } catch (caught) {
      // A topic outside the plan, or a step the engine does not expect to fail: read the batch
      // again after a back-off.
      const error =
        caught instanceof KafkaRetryError
          ? caught
          : new KafkaRetryError('step-failed', `a batch of ${topic}[${partition}] failed`, { cause: caught });
      const retryInMs = gate.holdAfterFailure(topic, partition, first.offset);
      rt.emit({ type: 'failed', role, topic, partition, offset: first.offset, error, retryInMs });
    }
  }

  private async batch(payload: EachBatchPayloadLike, first: ConsumedMessage): Promise<void> {
    const { topic, partition, messages } = payload.batch;
    const level = this.parts.levels.get(topic);
    if (this.parts.role === 'retry' && !level) {
      throw new KafkaRetryError('unknown-topic', `${topic} is not a retry topic of the plan`);
    }
    const ahead = this.aheadOf(topic, partition);
    const { entries, hold } = this.read(payload, ahead, level);
    const batch: Batch = { payload, heartbeatAt: this.parts.rt.clock.now(), rebalancing: false };
    await this.decide(entries, batch);
    this.effects(entries);
    await this.send(entries);
    const last = messages[messages.length - 1] as ConsumedMessage;
    const point = commitPoint(entries, hold, BigInt(last.offset));
    const committed = await this.commit(topic, partition, point, BigInt(first.offset), ahead);
    // Done records the commit does not cover are remembered, so that reading them again (after
    // a refused copy, or a failed commit while the group rejoins and this member keeps the
    // partition) skips them instead of running and copying them a second time.
    for (const entry of entries) {
      if (entry.done && (!committed || entry.offset > point))
        ahead.add(entry.offset, entry.d.message.timestamp);
    }
    this.position(batch, entries, hold, point, last);
    this.report(entries);
  }

  /** 1. The records to run, up to the first one not yet due (retry topics), which holds the partition. */
  private read(
    payload: EachBatchPayloadLike,
    ahead: DoneAhead,
    level: Level | undefined,
  ): { entries: Entry[]; hold?: Hold } {
    const { rt, consumer, gate, role } = this.parts;
    const { topic, partition, messages } = payload.batch;
    const entries: Entry[] = [];
    for (const message of messages) {
      const offset = BigInt(message.offset);
      const doneBefore = ahead.has(offset, message.timestamp);
      if (level && !doneBefore) {
        const notBefore = headerText(message.headers, KAFKA_HEADERS.notBefore);
        const due = dueAt(notBefore, message.timestamp, level.waitMs);
        if (rt.clock.now() < due.dueAt)
          return { entries, hold: { offset: message.offset, dueAt: due.dueAt } };
      }
      const d: Delivery = { role, consumer, gate, topic, partition, message, ...(level ? { level } : {}) };
      entries.push({ d, reading: read(d), offset, doneBefore, done: doneBefore });
    }
    return { entries };
  }

  /** 2. Every record's handler, side by side up to the consumer's bound. */
  private async decide(entries: Entry[], batch: Batch): Promise<void> {
    const { rt } = this.parts;
    await Promise.all(
      entries
        .filter((entry) => !entry.doneBefore)
        .map((entry) =>
          this.limiter.run(async () => {
            // Not started: left uncommitted, for this member or the next owner to read again.
            if (rt.stopping.aborted || batch.rebalancing || batch.payload.isStale()) return;
            entry.run = await callHandler(rt, entry.d, entry.reading);
            await this.heartbeat(batch);
          }),
        ),
    );
  }

  /** 3. Each decision as what it asks of the broker: nothing (an ack) or a copy. */
  private effects(entries: Entry[]): void {
    for (const entry of entries) {
      const decision = entry.run?.decision;
      if (decision?.kind === 'ack') entry.done = true;
      else if (decision?.kind === 'delayed' || decision?.kind === 'dead-letter') {
        entry.copy = copyOf(this.parts.rt, entry.d, entry.reading, decision, entry.run?.error);
      }
      // requeue (the runtime stopped during an in-memory wait): stays not done.
    }
  }

  /** 4. Every copy at once, awaited together; an acknowledged copy makes its record done. */
  private async send(entries: Entry[]): Promise<void> {
    const { rt } = this.parts;
    const sending = entries.filter((entry) => entry.copy !== undefined);
    if (sending.length === 0) return;
    const results = await sendCopies(
      rt.producer,
      rt.client,
      sending.map(({ d, copy }) => ({
        topic: (copy as Copy).destination,
        message: {
          key: d.message.key,
          value: d.message.value,
          headers: (copy as Copy).headers,
          partition: d.partition,
        },
      })),
      rt.rules.producer.acks,
    );
    for (const [index, entry] of sending.entries()) {
      const refused = results[index];
      if (refused) entry.refused = refused;
      else await this.afterCopy(entry);
    }
  }

  /** The fault tests' hook, between an acknowledged copy and the commit. */
  private async afterCopy(entry: Entry): Promise<void> {
    const { d, copy } = entry;
    try {
      await this.parts.rt.afterCopyProduced?.({
        topic: d.topic,
        partition: d.partition,
        offset: d.message.offset,
        destination: (copy as Copy).destination,
      });
      entry.done = true;
    } catch (cause) {
      entry.refused = new KafkaRetryError('step-failed', 'the after-copy hook failed before the commit', {
        cause,
      });
    }
  }

  /**
   * 5. One commit for the batch, when it moves past the batch's first record. A failed commit is
   * reported and not retried: the next batch's commit covers it, and if none comes (a rebalance)
   * the records are read again. False when it failed.
   */
  private async commit(
    topic: string,
    partition: number,
    point: bigint,
    firstOffset: bigint,
    ahead: DoneAhead,
  ): Promise<boolean> {
    if (point <= firstOffset) return true;
    const { rt, consumer, role } = this.parts;
    try {
      await consumer.commitOffsets([{ topic, partition, offset: String(point) }]);
      ahead.committed(point);
      return true;
    } catch (cause) {
      const error = new KafkaRetryError(
        'commit-failed',
        `committing ${topic}[${partition}] at ${point} failed`,
        {
          cause,
        },
      );
      rt.emit({ type: 'failed', role, topic, partition, offset: String(point - 1n), error });
      return false;
    }
  }

  /** 6. Where the partition is read next. */
  private position(
    batch: Batch,
    entries: Entry[],
    hold: Hold | undefined,
    point: bigint,
    last: ConsumedMessage,
  ) {
    const { rt, gate, consumer, role } = this.parts;
    const { topic, partition } = batch.payload.batch;
    if (entries.every((entry) => entry.done)) {
      gate.succeeded(topic, partition);
      if (!hold) {
        batch.payload.resolveOffset(last.offset);
        return;
      }
      gate.holdUntil(topic, partition, hold.offset, hold.dueAt);
      rt.emit({ type: 'waiting', role, topic, partition, offset: hold.offset, dueAt: hold.dueAt });
      return;
    }
    const at = String(point);
    // Records left because the runtime stops: the next owner (or this one, restarted) reads them.
    if (rt.stopping.aborted) {
      gate.park(topic, partition, at);
      return;
    }
    const refused = entries.filter((entry) => entry.refused !== undefined);
    if (refused.length > 0) {
      const retryInMs = gate.holdAfterFailure(topic, partition, at);
      for (const { d, refused: error } of refused) {
        rt.emit({
          type: 'failed',
          role,
          topic,
          partition,
          offset: d.message.offset,
          error: error as KafkaRetryError,
          retryInMs,
        });
      }
      return;
    }
    // Records not started because the group is rebalancing: read again from the first of them,
    // should this member keep the partition (a rebalance drops the position anyway).
    try {
      consumer.seek({ topic, partition, offset: at });
    } catch {
      // The partition is no longer this member's: its new owner reads from the commit.
    }
  }

  /** 7. What was carried out, counted and reported once it is on the broker. */
  private report(entries: Entry[]): void {
    for (const entry of entries) {
      const decision = entry.run?.decision;
      if (!decision || entry.doneBefore) continue;
      if (entry.done || decision.kind === 'requeue') {
        handled(this.parts.rt, entry.d, entry.reading, decision, entry.copy?.destination);
      }
    }
  }

  private async heartbeat(batch: Batch): Promise<void> {
    const now = this.parts.rt.clock.now();
    if (now - batch.heartbeatAt < HEARTBEAT_EVERY_MS) return;
    batch.heartbeatAt = now;
    try {
      await batch.payload.heartbeat();
    } catch {
      batch.rebalancing = true;
    }
  }

  private aheadOf(topic: string, partition: number): DoneAhead {
    const where = `${topic}\u0000${partition}`;
    let ahead = this.ahead.get(where);
    if (!ahead) {
      ahead = new DoneAhead();
      this.ahead.set(where, ahead);
    }
    return ahead;
  }
}

/**
 * The offset to commit: the first record of the batch not done, else the record that holds the
 * partition, else the one after the batch. Every record below it is done.
 */
export function commitPoint(
  entries: Array<{ offset: bigint; done: boolean }>,
  hold: Hold | undefined,
  last: bigint,
) {
  const pending = entries.find((entry) => !entry.done);
  if (pending) return pending.offset;
  if (hold) return BigInt(hold.offset);
  return last + 1n;
}
