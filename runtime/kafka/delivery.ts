import type { KafkaPlan, Level } from '../../policy/plan/types';
import { readAttempt } from '../attempt';
import type { Clock, Random } from '../clock';
import { HEADERS } from '../dead-letter';
import type { TargetRules } from '../decide';
import type { RetryMetrics } from '../metrics';
import { type FinalDecision, type HandlerRun, runHandler } from '../run-handler';
import type { ConsumedMessage, ConsumerLike, KafkaClient, ProducerLike } from './contract';
import { dueAt } from './due';
import { KafkaRetryError } from './errors';
import type { PartitionGate } from './gate';
import { headerText, KAFKA_HEADERS, type Origin, originOf } from './headers';
import type { KafkaHandler, KafkaRetryEvent, KafkaRetryOptions, KafkaRole } from './options';
import type { KeyOrdering } from './ordering';
import type { Placement } from './parking';
import { carryOut, commit, parkCopy } from './route';
import type { SourceLane } from './source-lane';

/** What every delivery shares: the rules, the clients, the injected world. */
export interface Runtime {
  rules: TargetRules & KafkaPlan;
  handler: KafkaHandler;
  producer: ProducerLike;
  client: KafkaClient;
  clock: Clock;
  random: Random;
  metrics: RetryMetrics;
  countParked: (role: KafkaRole) => void;
  countQueued: () => void;
  /** Present in park-key mode. */
  ordering?: KeyOrdering<Delivery>;
  stopping: AbortSignal;
  emit: (event: KafkaRetryEvent) => void;
  afterCopyProduced?: KafkaRetryOptions['afterCopyProduced'];
}

export interface Delivery {
  role: KafkaRole;
  consumer: ConsumerLike;
  gate: PartitionGate;
  topic: string;
  partition: number;
  message: ConsumedMessage;
  /** The retry level whose topic this record was read from (retry role only). */
  level?: Level;
  /** park-key, source records: the partition's progress, which the commit goes through. */
  lane?: SourceLane<Delivery>;
}

export interface Reading {
  attempt: number;
  invalid?: string;
  origin: Origin;
  /** The source offset as the key's sequence; undefined when a retry copy lacks its origin. */
  sequence?: number;
  parked: boolean;
}

/** What a record says about itself: its attempt, its origin, whether it was parked. */
export function read(d: Delivery): Reading {
  const { message, topic, partition } = d;
  const self = { topic, partition, offset: message.offset };
  if (d.role === 'main') {
    // Attempt 1 on the source topic, whatever a replayed record carries: a replay starts over.
    return { attempt: 1, origin: self, sequence: Number(message.offset), parked: false };
  }
  const origin = originOf(message.headers, self);
  const attempt = readAttempt(message.headers?.[HEADERS.attempt]);
  const carriedInvalid = headerText(message.headers, HEADERS.attemptInvalid);
  const invalid = attempt.invalid ?? carriedInvalid;
  return {
    attempt: attempt.attempt,
    ...(invalid === undefined ? {} : { invalid }),
    origin,
    ...(origin.fromHeaders ? { sequence: Number(origin.offset) } : {}),
    parked: headerText(message.headers, KAFKA_HEADERS.parked) !== undefined,
  };
}

/**
 * One record, main or retry: wait until due, keep key order, run the handler, carry the
 * decision out, commit. Never throws: a failed step leaves the offset uncommitted and holds the
 * partition for a back-off, so the record is read again (a duplicate, never a loss).
 */
export async function deliver(rt: Runtime, d: Delivery): Promise<void> {
  const at = { role: d.role, topic: d.topic, partition: d.partition, offset: d.message.offset };
  try {
    if (d.role === 'retry') {
      if (!d.level) throw new KafkaRetryError('unknown-topic', `${d.topic} is not a retry topic of the plan`);
      const notBefore = headerText(d.message.headers, KAFKA_HEADERS.notBefore);
      const due = dueAt(notBefore, d.message.timestamp, d.level.waitMs);
      if (rt.clock.now() < due.dueAt) {
        d.gate.holdUntil(d.topic, d.partition, d.message.offset, due.dueAt);
        rt.emit({ type: 'waiting', ...at, dueAt: due.dueAt });
        return;
      }
    }
    const reading = read(d);
    if (d.role === 'main' && rt.ordering) await fromSource(rt, rt.ordering, d, reading);
    else {
      const placement = await place(rt, d, reading);
      if (placement.kind === 'park') await park(rt, d, reading, placement);
      // Its next copy is in the chain: only the commit of this step is missing.
      else if (placement.kind === 'superseded') await commit(rt, d);
      else await handle(rt, d, reading);
    }
    d.gate.succeeded(d.topic, d.partition);
  } catch (caught) {
    const error =
      caught instanceof KafkaRetryError
        ? caught
        : new KafkaRetryError(
            'step-failed',
            `a step before the commit failed on ${d.topic}[${d.partition}]`,
            {
              cause: caught,
            },
          );
    if (rt.stopping.aborted) {
      d.gate.park(d.topic, d.partition, d.message.offset);
      rt.emit({ type: 'failed', ...at, error });
      return;
    }
    const retryInMs = d.gate.holdAfterFailure(d.topic, d.partition, d.message.offset);
    rt.emit({ type: 'failed', ...at, error, retryInMs });
  }
}

/** A retry-topic record in park-key mode: handled, or parked again behind an older record. */
async function place(
  rt: Runtime,
  d: Delivery,
  reading: Reading,
): Promise<Placement | { kind: 'superseded' }> {
  const key = d.message.key;
  if (!rt.ordering || !key) return { kind: 'handle' };
  try {
    const firstFailureAt = Number(headerText(d.message.headers, HEADERS.firstFailureAt));
    return await rt.ordering.inChain(d.partition, key.toString('base64'), reading.sequence, reading.parked, {
      topic: d.topic,
      offset: d.message.offset,
      timestamp: d.message.timestamp,
      ...(Number.isSafeInteger(firstFailureAt) && firstFailureAt > 0 ? { firstFailureAt } : {}),
    });
  } catch (cause) {
    throw viewFailed(cause);
  }
}

function viewFailed(cause: unknown): KafkaRetryError {
  if (cause instanceof KafkaRetryError) return cause;
  return new KafkaRetryError('chain-view-failed', 'reading the chain state failed', { cause });
}

async function park(
  rt: Runtime,
  d: Delivery,
  reading: Reading,
  placement: Extract<Placement, { kind: 'park' }>,
): Promise<void> {
  await parkCopy(rt, d, reading, placement);
  rt.emit({
    type: 'parked',
    role: d.role,
    topic: d.topic,
    partition: d.partition,
    offset: d.message.offset,
    destination: placement.topic,
    notBefore: placement.notBefore,
    behind: placement.head.sequence as number,
  });
}

/** A source record in park-key mode: handled, queued behind its key, or (queue full) parked. */
async function fromSource(rt: Runtime, ordering: KeyOrdering<Delivery>, d: Delivery, reading: Reading) {
  const keyId = d.message.key?.toString('base64');
  let decision: Awaited<ReturnType<KeyOrdering<Delivery>['fromSource']>>;
  try {
    decision = await ordering.fromSource(d, keyId);
  } catch (cause) {
    throw viewFailed(cause);
  }
  const lane = ordering.laneOf(d.partition);
  if (lane) d.lane = lane;
  switch (decision.kind) {
    case 'skip':
      return;
    case 'in-chain':
      return commit(rt, d);
    case 'handle':
      return handle(rt, d, reading);
    case 'queue':
      rt.countQueued();
      rt.emit({
        type: 'queued',
        role: 'main',
        topic: d.topic,
        partition: d.partition,
        offset: d.message.offset,
        behind: decision.behind,
      });
      return;
    case 'park': {
      // The key's queued records go first, in order, each taken off the queue once parked: a
      // failure leaves the rest queued, and this record is read again after the back-off.
      if (keyId !== undefined && lane) lane.releasing.add(keyId);
      try {
        for (const queued of decision.queued) {
          await park(rt, queued, { ...read(queued), parked: true }, decision.placement);
          const queue = lane?.queues.get(keyId as string);
          queue?.shift();
          if (queue?.length === 0) lane?.queues.delete(keyId as string);
        }
      } finally {
        if (keyId !== undefined) lane?.releasing.delete(keyId);
      }
      return park(rt, d, reading, decision.placement);
    }
  }
}

/**
 * A record that waited in memory behind an older record of its key, now first in line: run
 * and carried out like any source record. Resolves false when a step failed (it stays queued
 * and uncommitted, and is tried again after a back-off).
 */
export async function deliverQueued(rt: Runtime, d: Delivery): Promise<boolean> {
  try {
    await handle(rt, d, { ...read(d), parked: true });
    return true;
  } catch (caught) {
    const error =
      caught instanceof KafkaRetryError
        ? caught
        : new KafkaRetryError(
            'step-failed',
            `a step before the commit failed on ${d.topic}[${d.partition}]`,
            {
              cause: caught,
            },
          );
    rt.emit({
      type: 'failed',
      role: d.role,
      topic: d.topic,
      partition: d.partition,
      offset: d.message.offset,
      error,
    });
    return false;
  }
}

async function handle(rt: Runtime, d: Delivery, reading: Reading): Promise<void> {
  const run = await callHandler(rt, d, reading);
  const destination = await carryOut(rt, d, reading, run.decision, run.error);
  handled(rt, d, reading, run.decision, destination);
}

/** Runs the handler through the runtime core (classification, in-memory retries, the decision). */
export function callHandler(rt: Runtime, d: Delivery, reading: Reading): Promise<HandlerRun> {
  return runHandler(rt.rules, {
    attempt: reading.attempt,
    call: () =>
      rt.handler(d.message, {
        attempt: reading.attempt,
        maxAttempts: rt.rules.maxAttempts,
        topic: d.topic,
        partition: d.partition,
        offset: d.message.offset,
        origin: {
          topic: reading.origin.topic,
          partition: reading.origin.partition,
          offset: reading.origin.offset,
        },
        parked: reading.parked,
        signal: rt.stopping,
      }),
    clock: rt.clock,
    random: rt.random,
    metrics: rt.metrics,
    signal: rt.stopping,
  });
}

const OUTCOME = {
  ack: 'success',
  delayed: 'retry',
  'dead-letter': 'dead-letter',
  requeue: 'requeued',
} as const;

/** A decision carried out: counted, and reported as `handled`. */
export function handled(
  rt: Runtime,
  d: Delivery,
  reading: Reading,
  decision: FinalDecision,
  destination: string | undefined,
): void {
  rt.metrics.attempt(OUTCOME[decision.kind]);
  if (decision.kind === 'delayed') rt.metrics.retryScheduled('delayed', decision.level);
  if (decision.kind === 'dead-letter') rt.metrics.deadLettered(decision.reason);
  rt.emit({
    type: 'handled',
    role: d.role,
    topic: d.topic,
    partition: d.partition,
    offset: d.message.offset,
    attempt: reading.attempt,
    outcome: OUTCOME[decision.kind],
    ...(destination === undefined ? {} : { destination }),
  });
}
