/**
 * The Azure Service Bus adapter: a peek-lock handler wrapper for @azure/service-bus (an optional
 * peer), for a `receiveMessages` loop or a `subscribe` handler. See docs/servicebus.md.
 */

export { createServiceBusRetry, type ServiceBusRetry } from './consumer';
export type { PollingReceiver, ScheduleSender, SettlingReceiver, SubscribingReceiver } from './contract';
export {
  type DeadLetterReceiver,
  type ReplaySender,
  type ServiceBusDeadLetterOptions,
  serviceBusDeadLetters,
} from './dead-letters';
export { type ServiceBusErrorCode, ServiceBusRetryError } from './errors';
export type { ServiceBusHandler, ServiceBusHandlerContext, ServiceBusRetryOptions } from './options';
export type { ServiceBusOutcome } from './outcome';
