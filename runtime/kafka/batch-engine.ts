import type { Level } from '../../policy/plan/types';
import type { FinalDecision } from '../run-handler';
import type { Chain, Chains } from './chains';
import type { ConsumedMessage, EachBatchPayloadLike } from './contract';
import { BatchWork, Crew } from './crew';
import { handled, type Runtime, read } from './delivery';
import { DoneAhead } from './done-ahead';
import { dueAt } from './due';
import { KafkaRetryError } from './errors';
import type { PartitionGate } from './gate';
import { headerText, KAFKA_HEADERS } from './headers';
import type { KafkaRole } from './options';
import {
  type Decided,
  DONE_BEFORE,
  type Entry,
  NOT_STARTED,
  type Ordering,
  type Park,
  unordered,
} from './ordering';
import { PerKeyOrder } from './per-key-order';
import type { Positions, Turn } from './positions';
import { type Copy, copyOf } from './route';
import { sendCopies } from './send-copies';

/**
 * The batched engine (`engine: 'batched'`): a consumer reads with `eachBatch`, and each batch of
 * a topic-partition goes one way through:
 *
 * 1. read: which records run now, which this process carried out before (done-ahead.ts), and,
 *    on a retry topic, the first record not yet due, where the partition is held;
 * 2. decide: every record's handler, side by side up to `concurrency` per consumer, in the lanes
 *    of the batch's ordering (ordering.ts): unordered, or per-key order (per-key-order.ts), where
 *    a key's records go one after another, each placed first: run, parked behind an older record
 *    of its key, or left behind (a newer copy exists);
 * 3. effects: each record's turn as nothing to do or a copy (the next level, or the dead letter);
 * 4. send: every copy at once, awaited together (send-copies.ts);
 * 5. commit: once, up to the first record not done, through the position owner (positions.ts);
 * 6. position: read on, or hold (not due, a refused copy, the runtime stopping);
 * 7. report: metrics and `handled` events for what was carried out.
 *
 * Each step's output is a value of its own (`Entry`, `Decided`, `Outcome`), indexed by the
 * record's place in the batch; no step changes what an earlier one made.
 *
 * So a healthy record costs no commit of its own, and the commit never passes a record still
 * running or whose copy is not acknowledged: a crash anywhere before the commit leaves every
 * record of the batch to be read again (duplicates, never a loss). The engine commits plain
 * offsets: it reads no commit metadata, and writes none.
 */

/** Where a record ends (steps 3 and 4). */
interface Outcome {
  /** Its outcome is on the broker (or needs nothing there): the commit may pass it. */
  readonly done: boolean;
  /** The copy it asks for. */
  readonly copy?: Copy;
  /** Per-key order: parked behind an older record of its key. */
  readonly park?: Park;
  /** A decision that took the handler's place: a copy the broker will never take is dead-lettered. */
  readonly decision?: FinalDecision;
  /** Its copy was refused, or the fault hook threw once it was acknowledged. */
  readonly refused?: KafkaRetryError | undefined;
}

const DONE: Outcome = { done: true };
const HANDLERS_ENDED = Symbol('the batch’s handlers ended');
const NOT_DONE: Outcome = { done: false };

interface Batch {
  payload: EachBatchPayloadLike;
  /** When its records stop starting: half the plan's poll interval after it began. */
  startBy: number;
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
  /** The consumer's position owner: the engine's commits go through it. */
  positions: Positions;
  /** 'chain': one consumer reads the source topic (main) and the retry topics (retry). */
  role: KafkaRole | 'chain';
  /** Retry role: the plan's level of each retry topic. */
  levels: Map<string, Level>;
  gate: PartitionGate;
  /** Handler calls at once for this consumer. */
  concurrency: number;
  /** Per-key order: the member's chains (role 'chain' only). */
  chains?: Chains;
}

export class BatchEngine {
  private readonly crew: Crew;
  private readonly ahead = new Map<string, DoneAhead>();
  /** The chains' assignment the done-ahead records belong to: a new one is read from the broker afresh. */
  private aheadGeneration = 0;
  /** Batches under way, so that stopping can wait for their sends and commits. */
  private readonly running = new Set<Promise<void>>();

  /** Batches under way, each with how to return it early: at the stop's deadline. */
  private readonly returning = new Set<() => void>();

  constructor(private readonly parts: BatchEngineParts) {
    this.crew = new Crew(Math.max(1, Math.floor(parts.concurrency)), parts.rt);
    // A listener of its own, not a race against a promise that never settles: each race would
    // leave a reaction on it, one per batch, for as long as the consumer runs.
    parts.rt.abandoned.addEventListener(
      'abort',
      () => {
        for (const early of this.returning) early();
      },
      { once: true },
    );
  }

  /**
   * Handles one batch; never throws (a failed step leaves its records to be read again). Returns
   * at the stop's deadline even while a handler still runs, so that the client's disconnect,
   * which waits for the batch, can leave the group.
   */
  async onBatch(payload: EachBatchPayloadLike): Promise<void> {
    const handling = this.handle(payload);
    this.running.add(handling);
    let early: () => void = () => {};
    try {
      await new Promise<void>((resolve) => {
        early = resolve;
        if (this.parts.rt.abandoned.aborted) resolve();
        else this.returning.add(resolve);
        void handling.then(resolve);
      });
    } finally {
      this.returning.delete(early);
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
    const { rt, gate, positions } = this.parts;
    const role = this.roleOf(topic);
    // The partition's position changes only once this batch is over (positions.ts).
    const turn = positions.begin(topic, partition, BigInt(first.offset));
    if (rt.stopping.aborted) {
      gate.park(topic, partition);
      positions.end(turn);
      return;
    }
    try {
      const chains = this.parts.chains;
      if (!chains) await this.batch(payload, turn, role, undefined);
      else await this.chainBatch(chains, payload, turn, role);
    } catch (caught) {
      // A topic outside the plan, or a step the engine does not expect to fail: read the batch
      // again after a back-off.
      const error =
        caught instanceof KafkaRetryError
          ? caught
          : new KafkaRetryError('step-failed', `a batch of ${topic}[${partition}] failed`, { cause: caught });
      const retryInMs = gate.holdAfterFailure(topic, partition);
      rt.emit({ type: 'failed', role, topic, partition, offset: first.offset, error, retryInMs });
    } finally {
      positions.end(turn);
    }
  }

  /** The role of a topic's records: 'main' on the source topic, 'retry' on a level's topic. */
  private roleOf(topic: string): KafkaRole {
    const { role, levels } = this.parts;
    if (role !== 'chain') return role;
    return levels.has(topic) ? 'retry' : 'main';
  }

  /** Per-key order: a batch in its chain's turn, once the chain is ready (chains.ts). */
  private async chainBatch(
    chains: Chains,
    payload: EachBatchPayloadLike,
    turn: Turn,
    role: KafkaRole,
  ): Promise<void> {
    const { topic, partition } = payload.batch;
    if (topic !== this.parts.rt.rules.sourceTopic && !this.parts.levels.has(topic)) {
      throw new KafkaRetryError('unknown-topic', `${topic} is not a topic of the plan's chain`);
    }
    if (chains.generation !== this.aheadGeneration) {
      this.aheadGeneration = chains.generation;
      this.ahead.clear();
    }
    const chain = chains.of(partition);
    if (!chain) {
      // Not in this member's last assignment as it was told: the assignment is on its way.
      this.parts.gate.holdAfterFailure(topic, partition);
      return;
    }
    await chain.serial(async () => {
      if (!(await chains.admit(chain, payload))) return;
      await this.batch(payload, turn, role, chain);
    });
  }

  private async batch(
    payload: EachBatchPayloadLike,
    turn: Turn,
    role: KafkaRole,
    chain: Chain | undefined,
  ): Promise<void> {
    const { topic, partition, messages } = payload.batch;
    const { rt } = this.parts;
    const level = this.parts.levels.get(topic);
    if (role === 'retry' && !level) {
      throw new KafkaRetryError('unknown-topic', `${topic} is not a retry topic of the plan`);
    }
    const ordering =
      chain && this.parts.chains
        ? new PerKeyOrder(chain, this.parts.chains, rt.clock, rt.rules.deadLetterTopic)
        : unordered;
    const ahead = this.aheadOf(topic, partition);
    const { entries, hold } = this.read(payload, ahead, level, role, ordering);
    const now = rt.clock.now();
    const batch: Batch = {
      payload,
      // The Confluent client leaves the group when a batch outlasts max.poll.interval.ms (KafkaJS
      // has no such limit): the records not started by half of it are read again, in a new batch.
      startBy: now + rt.rules.maxPollIntervalMs / 2,
      heartbeatAt: now,
      rebalancing: false,
    };
    const decided = await this.decide(entries, batch, ordering);
    // The stop's deadline passed while handlers ran: nothing more is copied or committed, and the
    // partition's next owner reads every record from the last commit.
    if (rt.abandoned.aborted) return;
    const planned = entries.map((entry) => this.effect(entry, decided[entry.index] as Decided, ordering));
    const first = entries.filter((entry) => decided[entry.index]?.kind !== 'behind');
    const settled = await this.send(first, planned, ordering);
    const behind = this.parkBehindNewHeads(entries, decided, settled, ordering);
    const outcomes = behind.length > 0 ? await this.send(behind, settled, ordering) : settled;
    if (outcomes.some((outcome) => outcome.refused)) ordering.refused();
    if (rt.abandoned.aborted) return;
    const last = messages[messages.length - 1] as ConsumedMessage;
    const point = commitPoint(entries, outcomes, hold, BigInt(last.offset));
    const committed = await this.commit(payload, turn, point, ahead);
    // Done records the commit does not cover are remembered, so that reading them again (after
    // a refused copy, or a failed commit while the group rejoins and this member keeps the
    // partition) skips them instead of running and copying them a second time.
    for (const entry of entries) {
      if (outcomes[entry.index]?.done && (!committed || entry.offset > point))
        ahead.add(entry.offset, entry.message.timestamp);
    }
    this.position(batch, entries, outcomes, hold, point, last, role);
    this.report(entries, decided, outcomes, role);
  }

  /** 1. The records to run, up to the first one not yet due (retry topics), which holds the partition. */
  private read(
    payload: EachBatchPayloadLike,
    ahead: DoneAhead,
    level: Level | undefined,
    role: KafkaRole,
    ordering: Ordering,
  ): { entries: Entry[]; hold?: Hold } {
    const { rt } = this.parts;
    const { topic, partition, messages } = payload.batch;
    const entries: Entry[] = [];
    for (const message of messages) {
      const offset = BigInt(message.offset);
      const doneBefore = ahead.size > 0 && ahead.has(offset, message.timestamp);
      if (level && !doneBefore) {
        const notBefore = headerText(message.headers, KAFKA_HEADERS.notBefore);
        const due = dueAt(notBefore, message.timestamp, level.waitMs);
        if (rt.clock.now() < due.dueAt)
          return { entries, hold: { offset: message.offset, dueAt: due.dueAt } };
      }
      const reading = read({ role, topic, partition, message });
      const index = entries.length;
      const keyId = ordering.keyed && message.key ? message.key.toString('base64') : undefined;
      // One object per record, with the same fields whatever it holds (one shape for the engine).
      entries.push({ index, role, topic, partition, message, level, reading, offset, doneBefore, keyId });
    }
    return { entries };
  }

  /**
   * 2. Every record's handler, side by side up to the consumer's bound, in the ordering's lanes
   * (with per-key order, each key's records one after another), taken by the consumer's crew
   * (crew.ts) in turn with its other batches. Returns what each record's turn came to, by its
   * index.
   */
  private async decide(entries: Entry[], batch: Batch, ordering: Ordering): Promise<Decided[]> {
    const decided: Decided[] = new Array<Decided>(entries.length);
    const runnable: Entry[] = [];
    for (const entry of entries) {
      decided[entry.index] = entry.doneBefore ? DONE_BEFORE : NOT_STARTED;
      if (!entry.doneBefore) runnable.push(entry);
    }
    const lanes = ordering.lanes?.(runnable);
    const work = new BatchWork(runnable, lanes, ordering, decided, (now) => this.mayStart(batch, now));
    if (!work.open) return decided;
    // The Confluent client's heartbeat() does nothing (librdkafka heartbeats on its own thread):
    // no timer per batch there, where batches are small and many.
    const beating = this.parts.rt.client === 'kafkajs' ? this.beatWhileRunning(batch) : undefined;
    try {
      await this.crew.run(work);
    } finally {
      // With a reason of its own: abort() alone makes a DOMException, stack and all, per batch.
      beating?.abort(HANDLERS_ENDED);
    }
    return decided;
  }

  /**
   * Heartbeats every HEARTBEAT_EVERY_MS while the batch's handlers run, outside their slots: a
   * handler longer than the session timeout does not get the member evicted.
   */
  private beatWhileRunning(batch: Batch): AbortController {
    const stop = new AbortController();
    const { clock } = this.parts.rt;
    void (async () => {
      try {
        for (;;) {
          await clock.sleep(HEARTBEAT_EVERY_MS, stop.signal);
          await this.heartbeat(batch);
        }
      } catch {
        // The batch's handlers ended.
      }
    })();
    return stop;
  }

  /** Whether a record may start now; one that may not is left for this member or the next owner. */
  private mayStart(batch: Batch, now: number): boolean {
    return !(
      this.parts.rt.stopping.aborted ||
      batch.rebalancing ||
      batch.payload.isStale() ||
      now >= batch.startBy
    );
  }

  /** 3. What each record asks of the broker: nothing (done, or left for the next read) or a copy. */
  private effect(entry: Entry, decided: Decided, ordering: Ordering): Outcome {
    switch (decided.kind) {
      case 'done-before':
      case 'left-behind':
        return DONE;
      case 'parked':
        return { done: false, copy: ordering.parkedCopy(entry, decided.park), park: decided.park };
      case 'ran': {
        const { decision, error } = decided.run;
        if (decision.kind === 'ack') return DONE;
        if (decision.kind === 'requeue') return NOT_DONE;
        return { done: false, copy: copyOf(this.parts.rt, entry, entry.reading, decision, error) };
      }
      default:
        // Not started, or behind an older record of its key (parkBehindNewHeads).
        return NOT_DONE;
    }
  }

  /**
   * Per-key order, once the batch's first copies are acknowledged: the records that waited on an
   * older record of their key now in a retry topic are parked behind it; those whose older
   * record was dead-lettered, or whose copy was refused, stay for the partition's next read.
   * Sets their planned copies in `outcomes`; returns them.
   */
  private parkBehindNewHeads(
    entries: Entry[],
    decided: Decided[],
    outcomes: Outcome[],
    ordering: Ordering,
  ): Entry[] {
    const parking: Entry[] = [];
    for (const entry of entries) {
      const turn = decided[entry.index];
      if (turn?.kind !== 'behind') continue;
      const head = outcomes[turn.head];
      if (!head?.done || decisionOf(decided[turn.head], head)?.kind !== 'delayed') continue;
      const park = ordering.behindHead(entry);
      if (!park) continue;
      outcomes[entry.index] = { done: false, copy: ordering.parkedCopy(entry, park), park };
      parking.push(entry);
    }
    return parking;
  }

  /**
   * 4. The copies of `sending` at once, awaited together: returns the outcomes with each
   * acknowledged copy's record done, and each refused one's reason. A copy the broker will never
   * take ends as a dead letter with the reason, and a dead letter it will never take is sent
   * without its value: the partition moves on, never loops.
   */
  private async send(sending: Entry[], planned: Outcome[], ordering: Ordering): Promise<Outcome[]> {
    const outcomes = [...planned];
    let round = sending.filter((entry) => outcomes[entry.index]?.copy !== undefined);
    // At most: the retry copy, its dead letter, and that dead letter without its value.
    for (let tries = 1; round.length > 0; tries++) {
      await this.sendOnce(round, outcomes, ordering);
      if (tries === 3) break;
      round = round.filter((entry) => {
        const outcome = outcomes[entry.index] as Outcome;
        return outcome.refused?.code === 'copy-unsendable' && !outcome.copy?.dropValue;
      });
      for (const entry of round) {
        outcomes[entry.index] = this.insteadOfUnsendable(entry, outcomes[entry.index] as Outcome);
      }
    }
    return outcomes;
  }

  /** What a record whose copy the broker refused for good sends instead. */
  private insteadOfUnsendable(entry: Entry, outcome: Outcome): Outcome {
    const { rt } = this.parts;
    const refused = outcome.refused as KafkaRetryError;
    const copy = outcome.copy as Copy;
    if (copy.destination !== rt.rules.deadLetterTopic) {
      const decision = {
        kind: 'dead-letter' as const,
        reason: 'permanent' as const,
        because: `unsendable: ${refused.message}`,
      };
      return { done: false, decision, copy: copyOf(rt, entry, entry.reading, decision, refused) };
    }
    const d = entry;
    return {
      ...outcome,
      refused: undefined,
      copy: {
        ...copy,
        dropValue: true,
        headers: {
          ...copy.headers,
          [KAFKA_HEADERS.valueDropped]: `${d.topic}[${d.partition}]@${d.message.offset}`,
        },
      },
    };
  }

  private async sendOnce(sending: Entry[], outcomes: Outcome[], ordering: Ordering): Promise<void> {
    const { rt } = this.parts;
    const madeAt = rt.clock.now();
    const copies = sending.map((entry) => (outcomes[entry.index] as Outcome).copy as Copy);
    const producer = rt.producer;
    const results = await sendCopies(
      producer,
      rt.client,
      sending.map((d, at) => {
        const copy = copies[at] as Copy;
        return {
          topic: copy.destination,
          message: {
            key: d.message.key,
            value: copy.dropValue ? null : d.message.value,
            headers: ordering.headers(copy, madeAt),
            partition: d.partition,
          },
        };
      }),
      rt.rules.producer.acks,
    );
    // A producer that can never send again is replaced (or the runtime stops) before the batch
    // goes on: its refused copies are sent again, with the new one, when the partition is read again.
    const broken = results.find((result) => result?.code === 'producer-broken');
    if (broken) await rt.producerBroken(broken, producer);
    for (const [at, entry] of sending.entries()) {
      const outcome = outcomes[entry.index] as Outcome;
      const refused = results[at];
      if (refused) {
        outcomes[entry.index] = { ...outcome, refused };
        continue;
      }
      ordering.copied(entry, copies[at] as Copy, madeAt);
      const failed = rt.afterCopyProduced ? await this.afterCopy(entry, copies[at] as Copy) : undefined;
      outcomes[entry.index] = failed
        ? { ...outcome, refused: failed }
        : { ...outcome, done: true, refused: undefined };
    }
  }

  /** The fault tests' hook, between an acknowledged copy and the commit: its failure, if any. */
  private async afterCopy(entry: Entry, copy: Copy): Promise<KafkaRetryError | undefined> {
    const d = entry;
    try {
      await this.parts.rt.afterCopyProduced?.({
        topic: d.topic,
        partition: d.partition,
        offset: d.message.offset,
        destination: copy.destination,
      });
      return undefined;
    } catch (cause) {
      return new KafkaRetryError('step-failed', 'the after-copy hook failed before the commit', { cause });
    }
  }

  /**
   * 5. One commit for the batch, through the position owner: never backwards, and never for a
   * partition assigned again since the batch began. A failed commit is reported and not retried:
   * the next batch's commit covers it, and if none comes (a rebalance) the records are read
   * again. False when the group's commit does not cover `point`.
   */
  private async commit(payload: EachBatchPayloadLike, turn: Turn, point: bigint, ahead: DoneAhead) {
    if (point <= turn.firstOffset) return true;
    const { rt, positions } = this.parts;
    const { topic, partition } = turn;
    try {
      const outcome = await positions.commit(turn, point, () => payload.isStale());
      if (outcome === 'outdated') return false;
      ahead.committed(point);
      return true;
    } catch (cause) {
      const error = new KafkaRetryError(
        'commit-failed',
        `committing ${topic}[${partition}] at ${point} failed`,
        { cause },
      );
      const role = this.roleOf(topic);
      rt.emit({ type: 'failed', role, topic, partition, offset: String(point - 1n), error });
      return false;
    }
  }

  /**
   * 6. Where the partition is read next. The engine never seeks (gate.ts): it resolves the
   * batch's records up to the commit point, and the client reads the partition again from the
   * first record it did not resolve, in this assignment only. A partition that moves away and
   * comes back starts from the group's commit.
   */
  private position(
    batch: Batch,
    entries: Entry[],
    outcomes: Outcome[],
    hold: Hold | undefined,
    point: bigint,
    last: ConsumedMessage,
    role: KafkaRole,
  ) {
    const { rt, gate } = this.parts;
    const { payload } = batch;
    const { topic, partition } = payload.batch;
    if (outcomes.every((outcome) => outcome.done)) {
      gate.succeeded(topic, partition);
      if (!hold) {
        payload.resolveOffset(last.offset);
        return;
      }
      resolveBelow(payload, BigInt(hold.offset));
      gate.holdUntil(topic, partition, hold.dueAt);
      rt.emit({ type: 'waiting', role, topic, partition, offset: hold.offset, dueAt: hold.dueAt });
      return;
    }
    resolveBelow(payload, point);
    // Records left because the runtime stops: the next owner (or this one, restarted) reads them.
    if (rt.stopping.aborted) {
      gate.park(topic, partition);
      return;
    }
    const refused = entries.filter((entry) => outcomes[entry.index]?.refused !== undefined);
    if (refused.length > 0) {
      const retryInMs = gate.holdAfterFailure(topic, partition);
      for (const d of refused) {
        rt.emit({
          type: 'failed',
          role,
          topic,
          partition,
          offset: d.message.offset,
          error: outcomes[d.index]?.refused as KafkaRetryError,
          retryInMs,
        });
      }
    }
    // Otherwise records not started because the group is rebalancing (or, per-key order, waiting
    // on an older record of their key) are read again from the first of them, should this member
    // keep the partition.
  }

  /** 7. What was carried out, counted and reported once it is on the broker. */
  private report(entries: Entry[], decided: Decided[], outcomes: Outcome[], role: KafkaRole): void {
    const { rt } = this.parts;
    for (const entry of entries) {
      if (entry.doneBefore) continue;
      const outcome = outcomes[entry.index] as Outcome;
      const { park } = outcome;
      if (park && outcome.done) {
        rt.countParked(role);
        rt.emit({
          type: 'parked',
          role,
          topic: entry.topic,
          partition: entry.partition,
          offset: entry.message.offset,
          destination: park.topic,
          notBefore: park.notBefore,
          behind: park.head.sequence,
        });
      }
      const decision = decisionOf(decided[entry.index], outcome);
      if (!decision) continue;
      if (outcome.done || decision.kind === 'requeue') {
        handled(rt, entry, entry.reading, decision, outcome.copy?.destination);
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
function commitPoint(entries: Entry[], outcomes: Outcome[], hold: Hold | undefined, last: bigint) {
  const pending = entries.find((entry) => !outcomes[entry.index]?.done);
  if (pending) return pending.offset;
  if (hold) return BigInt(hold.offset);
  return last + 1n;
}

/** The decision a record's outcome carries out: its handler's, or the one that took its place. */
function decisionOf(decided: Decided | undefined, outcome: Outcome): FinalDecision | undefined {
  return outcome.decision ?? (decided?.kind === 'ran' ? decided.run.decision : undefined);
}

/** Resolves the batch's records below `offset`: the client reads the partition again from it. */
function resolveBelow(payload: EachBatchPayloadLike, offset: bigint): void {
  const first = payload.batch.messages[0];
  if (first && offset > BigInt(first.offset)) payload.resolveOffset(String(offset - 1n));
}
