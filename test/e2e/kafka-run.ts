import { randomBytes } from 'node:crypto';
import type { Consumer, Producer } from 'kafkajs';
import type { KafkaPlan, RetryPlan } from '../../policy';
import { type ConsumedMessage, createKafkaRetry, type KafkaRetry } from '../../runtime/kafka';
import { FAST, kafka } from '../integration/kafka/support';
import { http503, waitFor } from '../integration/rabbitmq/support';

/**
 * The Kafka runtime on topics someone else made (here, Pulumi): nothing is declared. Records are
 * `{"id": …}`; `script` decides each delivery's outcome from the id and the attempt.
 */

export type KafkaOutcome = 'ok' | '503' | 'permanent';

export class PermanentFailure extends Error {
  constructor() {
    super('the record is bad');
    this.name = 'InvalidCurrencyError';
  }
}

export interface KafkaRun {
  target: KafkaPlan;
  seen: Array<{ id: string; attempt: number; topic: string; at: number }>;
  send(id: string): Promise<void>;
  waitFor(id: string, attempt: number, timeoutMs: number): Promise<{ at: number; topic: string }>;
  /** Every record in the dead-letter topic so far, read by a fresh group from the start. */
  deadLetters(count: number, timeoutMs: number): Promise<ConsumedMessage[]>;
  stop(): Promise<void>;
}

export async function runKafka(
  plan: RetryPlan,
  script: (id: string, attempt: number) => KafkaOutcome,
): Promise<KafkaRun> {
  const target = plan.targets.kafka;
  if (!target) throw new Error('the plan has no kafka target');
  const start = Date.now();
  const seen: KafkaRun['seen'] = [];
  const producer: Producer = kafka.producer({ allowAutoTopicCreation: false });
  const admin = kafka.admin();
  await Promise.all([producer.connect(), admin.connect()]);
  const retry: KafkaRetry = createKafkaRetry({
    plan,
    producer,
    admin,
    consumerSettings: { ...FAST },
    fromBeginning: true,
    handler: async (message, context) => {
      const { id } = JSON.parse(String(message.value)) as { id: string };
      seen.push({ id, attempt: context.attempt, topic: context.topic, at: Date.now() - start });
      const outcome = script(id, context.attempt);
      if (outcome === '503') throw http503();
      if (outcome === 'permanent') throw new PermanentFailure();
    },
  });
  // The consumers the plan needs, made by the runtime (and disconnected by its stop).
  await retry.run(kafka);
  const readers: Consumer[] = [];
  return {
    target,
    seen,
    send: async (id) => {
      await producer.send({
        topic: target.sourceTopic,
        acks: -1,
        messages: [{ key: id, value: JSON.stringify({ id }) }],
      });
    },
    waitFor: (id, attempt, timeoutMs) =>
      waitFor(
        () => seen.find((each) => each.id === id && each.attempt === attempt),
        timeoutMs,
        `Kafka record ${id} on attempt ${attempt}`,
      ),
    deadLetters: async (count, timeoutMs) => {
      const read: ConsumedMessage[] = [];
      const reader = kafka.consumer({
        groupId: `${target.deadLetterTopic}.e2e-reader.${randomBytes(3).toString('hex')}`,
        ...FAST,
      });
      readers.push(reader);
      await reader.connect();
      await reader.subscribe({ topics: [target.deadLetterTopic], fromBeginning: true });
      await reader.run({ eachMessage: async ({ message }) => void read.push(message) });
      await waitFor(() => read.length >= count, timeoutMs, `${count} records in ${target.deadLetterTopic}`);
      await reader.disconnect();
      return read;
    },
    stop: async () => {
      await retry.stop();
      await Promise.all(readers.map((consumer) => consumer.disconnect().catch(() => undefined)));
      await Promise.all([producer.disconnect(), admin.disconnect()]);
    },
  };
}
