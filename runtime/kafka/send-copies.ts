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
  const requests: Array<Promise<void>> = [];
  for (const [topic, indexes] of byTopic) {
    for (const chunk of chunks(indexes, (index) => sizeOf((copies[index] as OutgoingCopy).message))) {
      const messages = chunk.map((index) => (copies[index] as OutgoingCopy).message);
      requests.push(
        producer
          // The Confluent client refuses a per-send `acks`; its producer config carries acks (-1 by default).
          .send({ topic, messages, ...(client === 'kafkajs' ? { acks } : {}) })
          .then(
            () => undefined,
            (cause: unknown) => {
              const partitions = [...new Set(messages.map((message) => message.partition))].join(',');
              const error = new KafkaRetryError(
                'produce-failed',
                `producing ${messages.length} copies to ${topic}[${partitions}] failed`,
                { cause },
              );
              for (const index of chunk) results[index] = error;
            },
          ),
      );
    }
  }
  await Promise.all(requests);
  return results;
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
  for (const [name, value] of Object.entries(message.headers)) {
    size += 8 + name.length;
    // A header sent without a value comes back as null (KafkaJS), and is copied as it came.
    for (const each of Array.isArray(value) ? value : [value])
      size += each == null ? 0 : typeof each === 'string' ? each.length * 3 : each.length;
  }
  return size;
}
