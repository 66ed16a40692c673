import type { Level } from '../../policy/plan/types';
import type { HandlerRun } from '../run-handler';
import { type Place, place } from './chain-keys';
import type { Chain, Chains } from './chains';
import type { ConsumedMessage, EachBatchPayloadLike } from './contract';
import { callHandler, type Delivery, handled, type Reading, type Runtime, read } from './delivery';
import { DoneAhead } from './done-ahead';
import { dueAt } from './due';
import { KafkaRetryError } from './errors';
import type { PartitionGate } from './gate';
import { copiedAtOf, headerText, KAFKA_HEADERS, parkedCopyHeaders } from './headers';
import { Limiter } from './limiter';
import type { KafkaRole } from './options';
import type { Positions, Turn } from './positions';
import { type Copy, copyOf } from './route';
import { sendCopies } from './send-copies';

/**
 * The batched engine (`engine: 'batched'`): a consumer reads with `eachBatch`, and each batch of
 * a topic-partition goes one way through:
 *
 * 1. read: which records run now, which this process carried out before (done-ahead.ts), and,
 *    on a retry topic, the first record not yet due, where the partition is held;
 * 2. decide: every record's handler, side by side up to `concurrency` per consumer; with per-key
 *    order (chains.ts), a key's records one after another, each placed first (chain-keys.ts):
 *    run, parked behind an older record of its key, or left behind (a newer copy exists);
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
  /** Per-key order: the record's key (base64) and sequence, and where it was placed. */
  keyId?: string;
  sequence?: number;
  park?: Extract<Place, { kind: 'park' }>;
  /** Per-key order: an older record of its key in this batch went to a retry topic first; parked behind it once that copy is acknowledged. */
  behind?: Entry;
  /** Its copy was refused, or the fault hook threw once it was acknowledged. */
  refused?: KafkaRetryError;
  /** Its outcome is on the broker (or needs nothing there): the commit may pass it. */
  done: boolean;
}

interface Batch {
  payload: EachBatchPayloadLike;
  /** When its records stop starting: half the plan's poll interval after it began. */
  startBy: number;
  /** Its topic-partition: the limiter serves each in turn. */
  lane: string;
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
  private readonly limiter: Limiter;
  private readonly ahead = new Map<string, DoneAhead>();
  /** The chains' assignment the done-ahead records belong to: a new one is read from the broker afresh. */
  private aheadGeneration = 0;
  /** Batches under way, so that stopping can wait for their sends and commits. */
  private readonly running = new Set<Promise<void>>();

  /** Batches under way, each with how to return it early: at the stop's deadline. */
  private readonly returning = new Set<() => void>();

  constructor(private readonly parts: BatchEngineParts) {
    this.limiter = new Limiter(Math.max(1, Math.floor(parts.concurrency)));
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
    const level = this.parts.levels.get(topic);
    if (role === 'retry' && !level) {
      throw new KafkaRetryError('unknown-topic', `${topic} is not a retry topic of the plan`);
    }
    const ahead = this.aheadOf(topic, partition);
    const { entries, hold } = this.read(payload, ahead, level, role);
    const now = this.parts.rt.clock.now();
    const batch: Batch = {
      payload,
      // The Confluent client leaves the group when a batch outlasts max.poll.interval.ms (KafkaJS
      // has no such limit): the records not started by half of it are read again, in a new batch.
      startBy: now + this.parts.rt.rules.maxPollIntervalMs / 2,
      lane: `${topic}\u0000${partition}`,
      heartbeatAt: now,
      rebalancing: false,
    };
    await this.decide(entries, batch, chain);
    // The stop's deadline passed while handlers ran: nothing more is copied or committed, and the
    // partition's next owner reads every record from the last commit.
    if (this.parts.rt.abandoned.aborted) return;
    this.effects(entries);
    await this.send(
      entries.filter((entry) => !entry.behind),
      chain,
    );
    if (chain) {
      await this.send(this.parkBehindNewHeads(entries, chain), chain);
      if (entries.some((entry) => entry.refused)) this.parts.chains?.readAgain(chain);
    }
    if (this.parts.rt.abandoned.aborted) return;
    const last = messages[messages.length - 1] as ConsumedMessage;
    const point = commitPoint(entries, hold, BigInt(last.offset));
    const committed = await this.commit(payload, turn, point, ahead);
    // Done records the commit does not cover are remembered, so that reading them again (after
    // a refused copy, or a failed commit while the group rejoins and this member keeps the
    // partition) skips them instead of running and copying them a second time.
    for (const entry of entries) {
      if (entry.done && (!committed || entry.offset > point))
        ahead.add(entry.offset, entry.d.message.timestamp);
    }
    this.position(batch, entries, hold, point, last, role);
    this.report(entries, role);
  }

  /** 1. The records to run, up to the first one not yet due (retry topics), which holds the partition. */
  private read(
    payload: EachBatchPayloadLike,
    ahead: DoneAhead,
    level: Level | undefined,
    role: KafkaRole,
  ): { entries: Entry[]; hold?: Hold } {
    const { rt } = this.parts;
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
      const d: Delivery = { role, topic, partition, message, ...(level ? { level } : {}) };
      const reading = read(d);
      entries.push({
        d,
        reading,
        offset,
        doneBefore,
        done: doneBefore,
        ...(message.key ? { keyId: message.key.toString('base64') } : {}),
        ...(reading.sequence === undefined ? {} : { sequence: reading.sequence }),
      });
    }
    return { entries };
  }

  /**
   * 2. Every record's handler, side by side up to the consumer's bound. With per-key order, each
   * key's records go one after another, and a key's turn ends at its first record that goes to
   * a retry topic or the dead letter: those after it wait for that copy (parkBehindNewHeads).
   */
  private async decide(entries: Entry[], batch: Batch, chain: Chain | undefined): Promise<void> {
    const pending = entries.filter((entry) => !entry.doneBefore);
    const lanes = chain ? byKey(pending) : pending.map((entry) => [entry]);
    const beating = this.beatWhileRunning(batch);
    try {
      await Promise.all(lanes.map((lane) => this.runLane(lane, batch, chain)));
    } finally {
      beating.abort();
    }
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

  private async runLane(lane: Entry[], batch: Batch, chain: Chain | undefined): Promise<void> {
    const { rt } = this.parts;
    for (const [index, entry] of lane.entries()) {
      if (chain) {
        const placed = place(chain.keys, placing(entry, rt.clock.now()));
        if (placed.kind === 'left-behind') {
          entry.done = true;
          continue;
        }
        if (placed.kind === 'park') {
          entry.park = placed;
          continue;
        }
      }
      const run = await this.limiter.run(async () => {
        // Not started: left uncommitted, for this member or the next owner to read again.
        if (rt.stopping.aborted || batch.rebalancing || batch.payload.isStale()) return undefined;
        if (rt.clock.now() >= batch.startBy) return undefined;
        return callHandler(rt, entry.d, entry.reading);
      }, batch.lane);
      if (!run) return;
      entry.run = run;
      if (!chain || entry.keyId === undefined) continue;
      if (entry.run.decision.kind === 'ack') {
        // Out of the chain (a crash before the commit runs it again: a duplicate, in order).
        if (entry.sequence !== undefined) chain.keys.remove(entry.keyId, entry.sequence);
        continue;
      }
      for (const later of lane.slice(index + 1)) later.behind = entry;
      return;
    }
  }

  /**
   * Per-key order, once the batch's first copies are acknowledged: the records that waited on an
   * older record of their key now in a retry topic are parked behind it; those whose older
   * record was dead-lettered, or whose copy was refused, stay for the partition's next read.
   */
  private parkBehindNewHeads(entries: Entry[], chain: Chain): Entry[] {
    const parking: Entry[] = [];
    for (const entry of entries) {
      const ahead = entry.behind;
      if (!ahead) continue;
      if (!ahead.done || ahead.run?.decision.kind !== 'delayed') continue;
      const placed = place(chain.keys, placing(entry, this.parts.rt.clock.now()));
      if (placed.kind !== 'park') continue;
      entry.park = placed;
      entry.copy = this.parkedCopy(entry, placed);
      parking.push(entry);
    }
    return parking;
  }

  private parkedCopy(entry: Entry, placed: Extract<Place, { kind: 'park' }>): Copy {
    const headers = parkedCopyHeaders({
      incoming: entry.d.message.headers,
      origin: entry.reading.origin,
      attempt: entry.reading.attempt,
      notBefore: placed.notBefore,
    });
    return { destination: placed.topic, headers, notBefore: placed.notBefore };
  }

  /** 3. Each decision as what it asks of the broker: nothing (an ack) or a copy. */
  private effects(entries: Entry[]): void {
    for (const entry of entries) {
      if (entry.park) entry.copy = this.parkedCopy(entry, entry.park);
      const decision = entry.run?.decision;
      if (decision?.kind === 'ack') entry.done = true;
      else if (decision?.kind === 'delayed' || decision?.kind === 'dead-letter') {
        entry.copy = copyOf(this.parts.rt, entry.d, entry.reading, decision, entry.run?.error);
      }
      // requeue (the runtime stopped during an in-memory wait): stays not done.
    }
  }

  /**
   * 4. Every copy at once, awaited together; an acknowledged copy makes its record done. With
   * per-key order each copy carries the time it was made, which is how the chain's index tells
   * a record's newest copy from the copies it left behind.
   */
  private async send(entries: Entry[], chain: Chain | undefined): Promise<void> {
    await this.sendOnce(entries, chain);
    // A copy the broker will never take ends as a dead letter with the reason, and a dead letter
    // it will never take is sent without its value: the partition moves on, never loops.
    for (let round = 0; round < 2; round++) {
      const unsendable = entries.filter(
        (entry) => entry.refused?.code === 'copy-unsendable' && !entry.copy?.dropValue,
      );
      if (unsendable.length === 0) return;
      for (const entry of unsendable) this.insteadOfUnsendable(entry);
      await this.sendOnce(unsendable, chain);
    }
  }

  /** What a record whose copy the broker refused for good sends instead. */
  private insteadOfUnsendable(entry: Entry): void {
    const { rt } = this.parts;
    const refused = entry.refused as KafkaRetryError;
    const copy = entry.copy as Copy;
    delete entry.refused;
    if (copy.destination !== rt.rules.deadLetterTopic) {
      const decision = {
        kind: 'dead-letter' as const,
        reason: 'permanent' as const,
        because: `unsendable: ${refused.message}`,
      };
      entry.run = { decision, error: refused, handlerCalls: entry.run?.handlerCalls ?? 0 };
      delete entry.park;
      entry.copy = copyOf(rt, entry.d, entry.reading, decision, refused);
      return;
    }
    const { d } = entry;
    entry.copy = {
      ...copy,
      dropValue: true,
      headers: {
        ...copy.headers,
        [KAFKA_HEADERS.valueDropped]: `${d.topic}[${d.partition}]@${d.message.offset}`,
      },
    };
  }

  private async sendOnce(entries: Entry[], chain: Chain | undefined): Promise<void> {
    const { rt } = this.parts;
    const sending = entries.filter((entry) => entry.copy !== undefined);
    if (sending.length === 0) return;
    const madeAt = rt.clock.now();
    const results = await sendCopies(
      rt.producer,
      rt.client,
      sending.map(({ d, copy }) => ({
        topic: (copy as Copy).destination,
        message: {
          key: d.message.key,
          value: (copy as Copy).dropValue ? null : d.message.value,
          headers: chain
            ? { ...(copy as Copy).headers, [KAFKA_HEADERS.copiedAt]: String(madeAt) }
            : (copy as Copy).headers,
          partition: d.partition,
        },
      })),
      rt.rules.producer.acks,
    );
    for (const [index, entry] of sending.entries()) {
      const refused = results[index];
      if (refused) entry.refused = refused;
      else {
        if (chain) indexCopy(chain, entry, madeAt, rt.rules.deadLetterTopic);
        await this.afterCopy(entry);
      }
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
    hold: Hold | undefined,
    point: bigint,
    last: ConsumedMessage,
    role: KafkaRole,
  ) {
    const { rt, gate } = this.parts;
    const { payload } = batch;
    const { topic, partition } = payload.batch;
    if (entries.every((entry) => entry.done)) {
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
    const refused = entries.filter((entry) => entry.refused !== undefined);
    if (refused.length > 0) {
      const retryInMs = gate.holdAfterFailure(topic, partition);
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
    }
    // Otherwise records not started because the group is rebalancing (or, per-key order, waiting
    // on an older record of their key) are read again from the first of them, should this member
    // keep the partition.
  }

  /** 7. What was carried out, counted and reported once it is on the broker. */
  private report(entries: Entry[], role: KafkaRole): void {
    const { rt } = this.parts;
    for (const entry of entries) {
      if (entry.park && entry.done && !entry.doneBefore) {
        rt.countParked(role);
        rt.emit({
          type: 'parked',
          role,
          topic: entry.d.topic,
          partition: entry.d.partition,
          offset: entry.d.message.offset,
          destination: entry.park.topic,
          notBefore: entry.park.notBefore,
          behind: entry.park.head.sequence,
        });
      }
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

/** A batch's records by key, each key's in offset order; records without a key each alone. */
function byKey(entries: Entry[]): Entry[][] {
  const lanes = new Map<string, Entry[]>();
  const alone: Entry[][] = [];
  for (const entry of entries) {
    if (entry.keyId === undefined) {
      alone.push([entry]);
      continue;
    }
    const lane = lanes.get(entry.keyId);
    if (lane) lane.push(entry);
    else lanes.set(entry.keyId, [entry]);
  }
  return [...lanes.values(), ...alone];
}

function placing(entry: Entry, now: number) {
  return {
    keyId: entry.keyId,
    sequence: entry.sequence,
    fromSource: entry.d.role === 'main',
    topic: entry.d.topic,
    // A copy by the time this runtime made it (its header), never by the broker's stamp.
    timestamp: entry.d.role === 'main' ? Number(entry.d.message.timestamp) : copiedAtOf(entry.d.message),
    now,
  };
}

/** An acknowledged copy, in the chain's index: the record's newest copy, or out of the chain. */
function indexCopy(chain: Chain, entry: Entry, madeAt: number, deadLetterTopic: string): void {
  const { keyId, sequence, copy } = entry;
  if (keyId === undefined || sequence === undefined || !copy) return;
  if (copy.destination === deadLetterTopic) chain.keys.remove(keyId, sequence);
  else {
    chain.keys.put(keyId, {
      sequence,
      topic: copy.destination,
      producedAt: madeAt,
      ...(copy.notBefore === undefined ? {} : { notBefore: copy.notBefore }),
    });
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

/** Resolves the batch's records below `offset`: the client reads the partition again from it. */
function resolveBelow(payload: EachBatchPayloadLike, offset: bigint): void {
  const first = payload.batch.messages[0];
  if (first && offset > BigInt(first.offset)) payload.resolveOffset(String(offset - 1n));
}
