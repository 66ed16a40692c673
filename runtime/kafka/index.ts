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
  KafkaClient,
  KafkaHeaders,
  KafkaLike,
  OutgoingMessage,
  ProducerLike,
} from './contract';
export type { DeadLetterConsumer } from './dead-letter-pass';
export { type KafkaDeadLetterAdmin, type KafkaDeadLetterOptions, kafkaDeadLetters } from './dead-letters';
export { type DeclaredTopology, declareKafkaTopology } from './declare';
export { type DueReading, dueAt } from './due';
export { KafkaRetryError, type KafkaRetryErrorCode } from './errors';
export {
  deadLetterCopyHeaders,
  headerText,
  KAFKA_HEADERS,
  type Origin,
  originOf,
  parkedCopyHeaders,
  retryCopyHeaders,
} from './headers';
export { createKafkaRetry, type KafkaRetry } from './kafka-retry';
export {
  KAFKA_DEFAULTS,
  type KafkaHandler,
  type KafkaHandlerContext,
  type KafkaRetryEvent,
  type KafkaRetryOptions,
  type KafkaRole,
} from './options';
export { KAFKA_PRODUCER_SETTINGS } from './producer-settings';
