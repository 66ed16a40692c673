/// <reference types="node" preserve="true" />
// Kept in the declarations: they use Node's types (Buffer, AbortSignal), and TypeScript 6 no longer
// loads @types/node unless a project lists it.
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
