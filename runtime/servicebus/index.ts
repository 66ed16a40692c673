/**
 * The Azure Service Bus adapter: a peek-lock handler wrapper for @azure/service-bus (an optional
 * peer), for a `receiveMessages` loop or a `subscribe` handler. See docs/servicebus.md.
 */

export { createServiceBusRetry, type ServiceBusRetry } from './consumer';
export type { PollingReceiver, ScheduleSender, SettlingReceiver, SubscribingReceiver } from './contract';
export { MAX_DEAD_LETTER_TEXT, MAX_PROPERTY_TEXT, type ServiceBusDeadLetter } from './dead-letter';
export {
  type DeadLetterReceiver,
  type ReplaySender,
  type ServiceBusDeadLetterOptions,
  serviceBusDeadLetters,
} from './dead-letters';
export { type ServiceBusErrorCode, ServiceBusRetryError } from './errors';
export {
  SERVICE_BUS_DEFAULTS,
  type ServiceBusHandler,
  type ServiceBusHandlerContext,
  type ServiceBusRetryOptions,
} from './options';
export type { ServiceBusOutcome } from './outcome';
