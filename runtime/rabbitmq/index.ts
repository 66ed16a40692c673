/// <reference types="node" preserve="true" />
// Kept in the declarations: they use Node's types (Buffer, AbortSignal), and TypeScript 6 no longer
// loads @types/node unless a project lists it.
/**
 * The RabbitMQ adapter (docs/rabbitmq.md): consumeWithRetries on a confirm channel, or
 * consumeWithFailover across a cluster's nodes, and the dead-letter commands' RabbitMQ side.
 */
export {
  consumeWithRetries,
  type RabbitConsumer,
  type RabbitConsumerOptions,
  type RabbitHandler,
  type RabbitHandlerContext,
} from './consumer';
export { type RabbitDeadLetterOptions, rabbitMqDeadLetters } from './dead-letters';
export { declareTopology, deleteTopology } from './declare';
export {
  consumeWithFailover,
  type FailoverConsumer,
  type FailoverEvent,
  type RabbitFailoverOptions,
} from './failover';
export type { RefusedPublishBackoff } from './held';
export { type ManagementApi, managementApi } from './management';
