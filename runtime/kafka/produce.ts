import type { KafkaAcks } from '../../policy/types';
import type { KafkaClient, OutgoingMessage, ProducerLike } from './contract';
import { KafkaRetryError } from './errors';

/**
 * Produces one copy and resolves once the broker acknowledges it with the plan's acks (-1, the
 * default, waits for every in-sync replica), with the copy's offset when the client reports it.
 * The partition is explicit, the source record's own:
 * a custom partitioner, or a key hashed by a different client, cannot move a key to another
 * partition along the chain.
 */
export async function produceCopy(
  producer: ProducerLike,
  client: KafkaClient,
  topic: string,
  message: OutgoingMessage,
  acks: KafkaAcks,
): Promise<number | undefined> {
  try {
    // The Confluent client refuses a per-send `acks`; its producer config carries acks (-1 by default).
    const sent = await producer.send({
      topic,
      messages: [message],
      ...(client === 'kafkajs' ? { acks } : {}),
    });
    const reported = sent?.[0]?.baseOffset ?? sent?.[0]?.offset;
    const offset = reported === undefined ? Number.NaN : Number(reported);
    return Number.isSafeInteger(offset) && offset >= 0 ? offset : undefined;
  } catch (cause) {
    throw new KafkaRetryError('produce-failed', `producing to ${topic}[${message.partition}] failed`, {
      cause,
    });
  }
}
