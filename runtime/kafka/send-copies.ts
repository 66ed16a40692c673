import type { KafkaAcks } from '../../policy/types';
import type { KafkaClient, OutgoingMessage, ProducerLike } from './contract';
import { KafkaRetryError } from './errors';

export interface OutgoingCopy {
  topic: string;
  message: OutgoingMessage;
}

/**
 * A produce request carries a partition's records as one record batch, which the broker refuses
 * past the topic's `max.message.bytes` (1 MB by default): a fetch's worth of copies with their
 * headers can pass that, so they go in requests of at most 900 KB, by a size that counts each
 * header character as 3 bytes (so the real request is smaller).
 */
export const MAX_REQUEST_BYTES = 900 * 1024;

/**
 * Sends every copy, one request per destination topic (or a few, under MAX_REQUEST_BYTES), all
 * of them at once, and waits until each is acknowledged or refused, with the plan's acks. Never
 * throws: per copy, in the order given, undefined when acknowledged, else the error. A request
 * refused as a whole refuses each of its copies, even those the broker may have written: they are
 * sent again with their records (a duplicate copy, never a lost one).
 */
export async function sendCopies(
  producer: ProducerLike,
  client: KafkaClient,
  copies: OutgoingCopy[],
  acks: KafkaAcks,
): Promise<Array<KafkaRetryError | undefined>> {
  try {
    return await sendAll(producer, client, copies, acks);
  } catch (cause) {
    // Not a refused request (those are per copy below) but a copy that could not even be sent:
    // every copy counts as refused, so no record is committed past.
    const error = new KafkaRetryError('produce-failed', `sending ${copies.length} copies failed`, { cause });
    return copies.map(() => error);
  }
}

async function sendAll(
  producer: ProducerLike,
  client: KafkaClient,
  copies: OutgoingCopy[],
  acks: KafkaAcks,
): Promise<Array<KafkaRetryError | undefined>> {
  const results: Array<KafkaRetryError | undefined> = copies.map(() => undefined);
  const byTopic = new Map<string, number[]>();
  copies.forEach((copy, index) => {
    const indexes = byTopic.get(copy.topic);
    if (indexes) indexes.push(index);
    else byTopic.set(copy.topic, [index]);
  });
  const send = (topic: string, chunk: number[]): Promise<void> => {
    const messages = chunk.map((index) => (copies[index] as OutgoingCopy).message);
    return (
      producer
        // The Confluent client refuses a per-send `acks`; its producer config carries acks (-1 by default).
        .send({ topic, messages, ...(client === 'kafkajs' ? { acks } : {}) })
        .then(
          () => undefined,
          (cause: unknown) => {
            const broken = producerBroken(cause);
            if (broken) {
              const error = new KafkaRetryError(
                'producer-broken',
                `the producer can never send again (${broken}): producing to ${topic} failed`,
                { cause },
              );
              for (const index of chunk) results[index] = error;
              return;
            }
            const refusal = neverTaken(cause);
            // One copy the broker will never take refuses its whole request: each is sent alone,
            // so that only that one is refused.
            if (refusal && chunk.length > 1) return Promise.all(chunk.map((index) => send(topic, [index])));
            const partitions = [...new Set(messages.map((message) => message.partition))].join(',');
            const error = refusal
              ? new KafkaRetryError(
                  'copy-unsendable',
                  `${topic}[${partitions}] refused the copy for good (${refusal})`,
                  { cause },
                )
              : new KafkaRetryError(
                  'produce-failed',
                  `producing ${messages.length} copies to ${topic}[${partitions}] failed`,
                  { cause },
                );
            for (const index of chunk) results[index] = error;
          },
        )
        .then(() => undefined)
    );
  };
  const requests: Array<Promise<void>> = [];
  for (const [topic, indexes] of byTopic) {
    for (const chunk of chunks(indexes, (index) => sizeOf((copies[index] as OutgoingCopy).message))) {
      requests.push(send(topic, chunk));
    }
  }
  await Promise.all(requests);
  return results;
}

/**
 * Kafka's error codes for a record the broker refuses whatever the number of tries: too large,
 * malformed, or not allowed. KafkaJS and the Confluent client both report the protocol's code
 * (librdkafka uses the same numbers for the broker's errors and its own size check).
 */
const NEVER_TAKEN = new Map<number, string>([
  [2, 'CORRUPT_MESSAGE'],
  [10, 'MESSAGE_TOO_LARGE'],
  [18, 'RECORD_LIST_TOO_LARGE'],
  [29, 'TOPIC_AUTHORIZATION_FAILED'],
  [32, 'INVALID_TIMESTAMP'],
  [43, 'UNSUPPORTED_FOR_MESSAGE_FORMAT'],
  [87, 'INVALID_RECORD'],
]);

/** The name of the refusal when `error` (or an error it wraps) says the broker will never take the record. */
export function neverTaken(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || error === null || typeof error !== 'object') return undefined;
  const { code, cause, originalError, errors } = error as {
    code?: unknown;
    cause?: unknown;
    originalError?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'number' && NEVER_TAKEN.has(code)) return NEVER_TAKEN.get(code);
  for (const inner of [cause, originalError, ...(Array.isArray(errors) ? errors : [])]) {
    const found = neverTaken(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Errors after which a producer never sends again. KafkaJS's idempotent producer keeps its
 * sequence numbers when a broker fails mid-request and never resets them: every later send to
 * that partition is refused as OUT_OF_ORDER_SEQUENCE_NUMBER (seen here after a leader was killed,
 * for minutes, until the test ended); the same holds for a producer id or epoch the broker no
 * longer knows. librdkafka marks such a state fatal (its error -150, `fatal`).
 */
const PRODUCER_BROKEN = new Map<number, string>([
  [45, 'OUT_OF_ORDER_SEQUENCE_NUMBER'],
  [47, 'INVALID_PRODUCER_EPOCH'],
  [49, 'INVALID_PRODUCER_ID_MAPPING'],
  [59, 'UNKNOWN_PRODUCER_ID'],
  [-150, 'FATAL'],
]);

/** The name of the state when `error` (or an error it wraps) says the producer can never send again. */
export function producerBroken(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || error === null || typeof error !== 'object') return undefined;
  const { code, fatal, cause, originalError, errors } = error as {
    code?: unknown;
    fatal?: unknown;
    cause?: unknown;
    originalError?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'number' && PRODUCER_BROKEN.has(code)) return PRODUCER_BROKEN.get(code);
  if (fatal === true) return 'FATAL';
  for (const inner of [cause, originalError, ...(Array.isArray(errors) ? errors : [])]) {
    const found = producerBroken(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function chunks(indexes: number[], size: (index: number) => number): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  let bytes = 0;
  for (const index of indexes) {
    const each = size(index);
    if (current.length > 0 && bytes + each > MAX_REQUEST_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(index);
    bytes += each;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** A record's size in a record batch, near enough: its key, value and headers, and their framing. */
export function sizeOf(message: OutgoingMessage): number {
  let size = 24 + (message.key?.length ?? 0) + (message.value?.length ?? 0);
  const { headers } = message;
  for (const name in headers) {
    const value = headers[name];
    size += 8 + name.length;
    if (Array.isArray(value)) for (const each of value) size += headerBytes(each);
    else size += headerBytes(value);
  }
  return size;
}

/** A header value's bytes, at most (a string's UTF-8 is at most 3 bytes a UTF-16 unit). */
function headerBytes(value: string | Buffer | null | undefined): number {
  // A header sent without a value comes back as null (KafkaJS), and is copied as it came.
  if (value == null) return 0;
  return typeof value === 'string' ? value.length * 3 : value.length;
}
