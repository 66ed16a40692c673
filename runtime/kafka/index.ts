/// <reference types="node" preserve="true" />
// Kept in the declarations: they use Node's types (Buffer, AbortSignal), and TypeScript 6 no longer
// loads @types/node unless a project lists it.
/**
 * The Kafka adapter (docs/kafka.md). Typed against the KafkaJS API shape (contract.ts): pass
 * `kafkajs` clients, or `@confluentinc/kafka-javascript`'s KafkaJS ones with `client: 'confluent'`.
 * Nothing here loads a Kafka client at run time.
 */
export type {
  AdminLike,
  ConsumedMessage,
  ConsumerLike,
  EachBatchPayloadLike,
  EachMessagePayloadLike,
  HeaderValue,
  KafkaClient,
  KafkaHeaders,
  KafkaLike,
  OutgoingMessage,
  ProducerLike,
  RecordMetadataLike,
  RunConfigLike,
  TopicPartitions,
} from './contract';
export type { DeadLetterConsumer } from './dead-letter-pass';
export { type KafkaDeadLetterAdmin, type KafkaDeadLetterOptions, kafkaDeadLetters } from './dead-letters';
export { type DeclaredTopology, declareKafkaTopology } from './declare';
export { KafkaRetryError, type KafkaRetryErrorCode } from './errors';
export { headerText, KAFKA_HEADERS, type Origin } from './headers';
export { createKafkaRetry, type KafkaRetry } from './kafka-retry';
export type {
  KafkaEventPosition,
  KafkaHandler,
  KafkaHandlerContext,
  KafkaRetryEvent,
  KafkaRetryOptions,
  KafkaRole,
} from './options';
export { KAFKA_PRODUCER_SETTINGS } from './producer-settings';
