import { type Admin, type Consumer, type EachBatchPayload, Kafka, logLevel, type Producer } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import type {
  AdminLike,
  ConsumerLike,
  EachBatchPayloadLike,
  KafkaLike,
  ProducerLike,
} from '../../../runtime/kafka';

// Compile-time: kafkajs 2.2.4's clients satisfy the adapter's structural contract with no cast.
const asConsumer = (consumer: Consumer): ConsumerLike => consumer;
const asProducer = (producer: Producer): ProducerLike => producer;
const asAdmin = (admin: Admin): AdminLike => admin;
// And what KafkaJS hands to `eachBatch` is what the batched engine reads.
const asBatch = (payload: EachBatchPayload): EachBatchPayloadLike => payload;
// And KafkaJS's `Kafka` makes the consumer run(kafka) runs.
const asKafka = (kafka: Kafka): KafkaLike => kafka;

describe('the KafkaJS contract', () => {
  it('is met by kafkajs clients (checked by the compiler; nothing connects)', () => {
    const kafka = new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING });
    const consumer = asConsumer(kafka.consumer({ groupId: 'contract-check' }));
    expect(typeof consumer.seek).toBe('function');
    expect(consumer.events?.GROUP_JOIN).toBe('consumer.group_join');
    expect(typeof asProducer(kafka.producer()).send).toBe('function');
    expect(typeof asAdmin(kafka.admin()).fetchTopicOffsets).toBe('function');
    expect(asBatch).toBeTypeOf('function');
    expect(typeof asKafka(kafka).consumer).toBe('function');
  });
});
