import type { ServiceBusReceiver, ServiceBusSender } from '@azure/service-bus';

/**
 * The part of the SDK the wrapper touches, as Picks of the real interfaces (@azure/service-bus
 * 7.9.5): a real receiver or sender satisfies them with no cast, and the test fake implements the
 * same Picks, so the compiler checks the fake against the SDK's contract.
 *
 * Type imports only: at run time this module never loads @azure/service-bus (an optional peer).
 */

/** Settles one message it received in peek-lock mode. */
export type SettlingReceiver = Pick<
  ServiceBusReceiver,
  | 'entityPath'
  | 'receiveMode'
  | 'completeMessage'
  | 'abandonMessage'
  | 'deadLetterMessage'
  | 'renewMessageLock'
>;

/** A receiver for the `receiveMessages` loop. */
export type PollingReceiver = SettlingReceiver & Pick<ServiceBusReceiver, 'receiveMessages'>;

/** A receiver for the `subscribe` handler. */
export type SubscribingReceiver = SettlingReceiver & Pick<ServiceBusReceiver, 'subscribe'>;

/** Schedules the retry copies, on the plan's `scheduleTo` entity. */
export type ScheduleSender = Pick<ServiceBusSender, 'entityPath' | 'scheduleMessages'>;
