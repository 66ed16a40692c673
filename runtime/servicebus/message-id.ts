import type { ServiceBusReceivedMessage } from '@azure/service-bus';

/** The messageId as text, for the handler's idempotency key and for error reports. */
export function messageIdOf(message: ServiceBusReceivedMessage): string | undefined {
  const id = message.messageId;
  if (id === undefined || id === null) return undefined;
  if (typeof id === 'string') return id;
  if (typeof id === 'number') return String(id);
  return Buffer.from(id).toString('hex');
}
