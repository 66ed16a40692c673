export { attemptOf } from './attempt';
export { PUBLISH_ID_HEADER, publishConfirmed } from './confirm';
export {
  consumeWithRetries,
  type RabbitConsumer,
  type RabbitConsumerOptions,
  type RabbitHandler,
  type RabbitHandlerContext,
} from './consumer';
export { copyProperties } from './copy';
export { type RabbitDeadLetterOptions, rabbitMqDeadLetters } from './dead-letters';
export { declareTopology, deleteTopology } from './declare';
export {
  consumeWithFailover,
  type FailoverConsumer,
  type FailoverEvent,
  type FailoverOptions,
  type FailoverSession,
  type RabbitFailoverOptions,
  runFailover,
} from './failover';
export { type ManagementApi, managementApi } from './management';
