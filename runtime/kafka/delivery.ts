import type { KafkaPlan, Level } from '../../policy/plan/types';
import { readAttempt } from '../attempt';
import type { Clock, Random } from '../clock';
import { HEADERS } from '../dead-letter';
import type { TargetRules } from '../decide';
import type { RetryMetrics } from '../metrics';
import { type FinalDecision, type HandlerRun, runHandler } from '../run-handler';
import type { ConsumedMessage, KafkaClient, ProducerLike } from './contract';
import { headerText, KAFKA_HEADERS, type Origin, originOf } from './headers';
import type { KafkaHandler, KafkaRetryEvent, KafkaRole, KafkaTestHooks } from './options';

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
