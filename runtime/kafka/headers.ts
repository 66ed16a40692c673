import { type DeadLetterInfo, deadLetterHeaders, HEADERS } from '../dead-letter';
import type { KafkaHeaders, OutgoingMessage } from './contract';

/**
 * Headers only the Kafka chain needs, next to the shared ones in runtime/dead-letter.ts. The
 * original position answers "where did this come from" at the end of the chain, and it is the
 * per-key sequence number park-key ordering sorts by (see chain-index.ts).
 */
export const KAFKA_HEADERS = {
  notBefore: HEADERS.notBefore,
  originalTopic: 'retry-original-topic',
  originalPartition: 'retry-original-partition',
  originalOffset: 'retry-original-offset',
  /** Present on a record that was parked behind an older record of its key, never handled yet. */
  parked: 'retry-parked',
  /**
   * Per-key order: when this runtime made the copy (epoch ms, its own clock). It tells a record's
   * newest copy from the older ones it left behind. The record timestamp cannot: a topic with
   * `message.timestamp.type=LogAppendTime`, or a broker clock behind the producer's, stamps a new
   * copy earlier than the runtime made it.
   */
  copiedAt: 'retry-copied-at',
  /**
   * On a dead letter sent without its value, because the broker would not take the record:
   * `topic[partition]@offset` of the record that holds the value.
   */
  valueDropped: 'retry-value-dropped',
} as const;

/** Every header the runtime writes: replaced on each copy, never carried over twice. */
const OWN_HEADERS = new Set<string>([...Object.values(HEADERS), ...Object.values(KAFKA_HEADERS)]);

export type CopyHeaders = OutgoingMessage['headers'];

/** Where a record entered the chain: the source topic's topic, partition and offset. */
export interface Origin {
  topic: string;
  partition: number;
  offset: string;
}

/**
 * The first value of a header as text (KafkaJS hands over Buffers, and arrays for repeats). A
 * header sent without a value comes as null, whatever the client's types say: no text.
 */
export function headerText(headers: KafkaHeaders | undefined, name: string): string | undefined {
  const raw = headers?.[name];
  const first = Array.isArray(raw) ? raw[0] : raw;
  if (first === undefined || first === null) return undefined;
  return typeof first === 'string' ? first : first.toString('utf8');
}

/** The producer's headers as they came, without ours. */
export function keptHeaders(headers: KafkaHeaders | undefined): CopyHeaders {
  const kept: CopyHeaders = {};
  if (!headers) return kept;
  // for…in, not Object.entries: a copy per failed record, and no array per header.
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name];
    if (value !== undefined && !OWN_HEADERS.has(name)) kept[name] = value;
  }
  return kept;
}

/** Sets one of our headers, as text; undefined leaves it out. */
function put(headers: CopyHeaders, name: string, value: string | number | undefined): void {
  if (value !== undefined) headers[name] = String(value);
}

function withOurs(incoming: KafkaHeaders | undefined, ours: Record<string, string | number | undefined>) {
  const headers = keptHeaders(incoming);
  for (const name in ours) put(headers, name, ours[name]);
  return headers;
}

/** Reads the origin a copy carries; a record on the source topic is its own origin. */
export function originOf(headers: KafkaHeaders | undefined, self: Origin): Origin & { fromHeaders: boolean } {
  const topic = headerText(headers, KAFKA_HEADERS.originalTopic);
  const partition = Number(headerText(headers, KAFKA_HEADERS.originalPartition));
  const offset = headerText(headers, KAFKA_HEADERS.originalOffset)?.trim();
  if (topic && Number.isInteger(partition) && partition >= 0 && offset && /^\d+$/.test(offset)) {
    return { topic, partition, offset, fromHeaders: true };
  }
  return { ...self, fromHeaders: false };
}

function originHeaders(origin: Origin) {
  return {
    [KAFKA_HEADERS.originalTopic]: origin.topic,
    [KAFKA_HEADERS.originalPartition]: origin.partition,
    [KAFKA_HEADERS.originalOffset]: origin.offset,
  };
}

/** A copy for the next level: the attempt it will be, when it is due, where it came from. */
export function retryCopyHeaders(input: {
  incoming: KafkaHeaders | undefined;
  origin: Origin;
  nextAttempt: number;
  notBefore: number;
  firstFailureAt: number;
  attemptInvalid?: string;
}): CopyHeaders {
  // Set one by one, not spread from an object of computed names: every retry copy is built here.
  const headers = keptHeaders(input.incoming);
  put(headers, KAFKA_HEADERS.originalTopic, input.origin.topic);
  put(headers, KAFKA_HEADERS.originalPartition, input.origin.partition);
  put(headers, KAFKA_HEADERS.originalOffset, input.origin.offset);
  put(headers, HEADERS.attempt, input.nextAttempt);
  put(headers, KAFKA_HEADERS.notBefore, input.notBefore);
  put(headers, HEADERS.firstFailureAt, input.firstFailureAt);
  put(headers, HEADERS.attemptInvalid, input.attemptInvalid);
  return headers;
}

/**
 * A record parked behind an older record of its key. It keeps its attempt (1 if it never ran)
 * and, once it has failed, its first-failure time; its due time is the older record's.
 */
export function parkedCopyHeaders(input: {
  incoming: KafkaHeaders | undefined;
  origin: Origin;
  attempt: number;
  notBefore: number;
}): CopyHeaders {
  return withOurs(input.incoming, {
    ...originHeaders(input.origin),
    [HEADERS.attempt]: input.attempt,
    [KAFKA_HEADERS.notBefore]: input.notBefore,
    [HEADERS.firstFailureAt]: headerText(input.incoming, HEADERS.firstFailureAt),
    [HEADERS.attemptInvalid]: headerText(input.incoming, HEADERS.attemptInvalid),
    [KAFKA_HEADERS.parked]: 'true',
  });
}

/** The dead-letter copy: the shared reason and error headers, plus where it came from. */
export function deadLetterCopyHeaders(input: {
  incoming: KafkaHeaders | undefined;
  origin: Origin;
  info: DeadLetterInfo;
}): CopyHeaders {
  return withOurs(input.incoming, { ...originHeaders(input.origin), ...deadLetterHeaders(input.info) });
}

/**
 * When a copy was made, for telling a record's copies apart: its `retry-copied-at`, else (a copy
 * made without per-key order, or a source record) its record timestamp.
 */
export function copiedAtOf(message: { headers?: KafkaHeaders; timestamp: string }): number {
  const text = headerText(message.headers, KAFKA_HEADERS.copiedAt)?.trim();
  const value = text !== undefined && /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(value) ? value : Number(message.timestamp);
}

/** When the record first failed: carried on copies, else now. */
export function firstFailureAt(headers: KafkaHeaders | undefined, now: number): number {
  const value = Number(headerText(headers, HEADERS.firstFailureAt));
  return Number.isSafeInteger(value) && value > 0 ? value : now;
}
