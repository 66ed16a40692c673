import type { KafkaPlan, Level } from '../../policy/plan/types';
import { readAttempt } from '../attempt';
import type { Clock, Random } from '../clock';
import { HEADERS } from '../dead-letter';
import type { TargetRules } from '../decide';
import { noMetrics, type RetryMetrics } from '../metrics';
import { type FinalDecision, type HandlerFailure, type HandlerRun, runHandler } from '../run-handler';
import type { ConsumedMessage, KafkaClient, ProducerLike } from './contract';
import type { KafkaRetryError } from './errors';
import { headerText, KAFKA_HEADERS, type Origin, originOf } from './headers';
import type {
  KafkaHandler,
  KafkaHandlerContext,
  KafkaRetryEvent,
  KafkaRole,
  KafkaTestHooks,
} from './options';

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
  stopping: AbortSignal;
  /** The stop's deadline passed: a batch still under way copies and commits nothing more. */
  abandoned: AbortSignal;
  emit: (event: KafkaRetryEvent) => void;
  /** Something listens to the events: without a listener none is made. */
  listening: boolean;
  /**
   * The producer can never send again: resolves once `producer` is a new one (replaceProducer),
   * or once the runtime is stopping (no replacement: `closed` rejects with the error).
   */
  producerBroken: (error: KafkaRetryError, used: ProducerLike) => Promise<void>;
  afterCopyProduced?: KafkaTestHooks['afterCopyProduced'];
}

export interface Delivery {
  role: KafkaRole;
  topic: string;
  partition: number;
  message: ConsumedMessage;
  /** The retry level whose topic this record was read from (retry role only). */
  level?: Level;
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
export function read({ role, topic, partition, message }: Omit<Delivery, 'level'>): Reading {
  const self: Origin = { topic, partition, offset: message.offset };
  if (role === 'main') {
    // Attempt 1 on the source topic, whatever a replayed record carries: a replay starts over.
    return { attempt: 1, origin: self, sequence: Number(message.offset), parked: false };
  }
  const found = originOf(message.headers, self);
  const attempt = readAttempt(message.headers?.[HEADERS.attempt]);
  const invalid = attempt.invalid ?? headerText(message.headers, HEADERS.attemptInvalid);
  const reading: Reading = {
    attempt: attempt.attempt,
    // The handler sees the origin as it is (topic, partition, offset), nothing of ours.
    origin: found.fromHeaders
      ? { topic: found.topic, partition: found.partition, offset: found.offset }
      : self,
    parked: headerText(message.headers, KAFKA_HEADERS.parked) !== undefined,
  };
  if (invalid !== undefined) reading.invalid = invalid;
  if (found.fromHeaders) reading.sequence = Number(found.offset);
  return reading;
}

/** What the handler is told about a delivery. */
export function contextOf(rt: Runtime, d: Delivery, reading: Reading): KafkaHandlerContext {
  return {
    attempt: reading.attempt,
    maxAttempts: rt.rules.maxAttempts,
    topic: d.topic,
    partition: d.partition,
    offset: d.message.offset,
    origin: reading.origin,
    parked: reading.parked,
    signal: rt.stopping,
  };
}

/** A handler that resolved at its first call: shared by every such record, never changed. */
export const SUCCEEDED: HandlerRun = Object.freeze({
  decision: Object.freeze({ kind: 'ack' as const }),
  handlerCalls: 1,
});

/**
 * The engine calls the handler itself (batch-engine.ts, with `contextOf`): a handler that
 * resolved at its first call, begun at `started`, is counted here.
 */
export function succeeded(rt: Runtime, started: number): HandlerRun {
  // Without a meter nothing records the duration: no second reading of the clock.
  if (rt.metrics !== noMetrics) rt.metrics.handlerDuration(rt.clock.now() - started, 'success');
  return SUCCEEDED;
}

/** A first call that failed goes on in the runtime core: classification, in-memory retries, the decision. */
export function afterFailure(
  rt: Runtime,
  d: Delivery,
  reading: Reading,
  failure: HandlerFailure,
): Promise<HandlerRun> {
  return runHandler(rt.rules, {
    attempt: reading.attempt,
    call: () => rt.handler(d.message, contextOf(rt, d, reading)),
    firstFailure: failure,
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

/** A decision carried out: counted, and reported as `handled` (when something listens). */
export function handled(
  rt: Runtime,
  d: Delivery,
  reading: Reading,
  decision: FinalDecision,
  destination: string | undefined,
): void {
  const outcome = OUTCOME[decision.kind];
  rt.metrics.attempt(outcome);
  if (decision.kind === 'delayed') rt.metrics.retryScheduled('delayed', decision.level);
  if (decision.kind === 'dead-letter') rt.metrics.deadLettered(decision.reason);
  if (!rt.listening) return;
  const event: Extract<KafkaRetryEvent, { type: 'handled' }> = {
    type: 'handled',
    role: d.role,
    topic: d.topic,
    partition: d.partition,
    offset: d.message.offset,
    attempt: reading.attempt,
    outcome,
  };
  if (destination !== undefined) event.destination = destination;
  rt.emit(event);
}
