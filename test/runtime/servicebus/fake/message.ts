import type { ServiceBusMessage, ServiceBusReceivedMessage } from '@azure/service-bus';
import { long } from './long';

/** A message as the fake broker stores it, between deliveries. */
export interface Stored {
  sequenceNumber: number;
  sent: ServiceBusMessage;
  enqueuedAt: number;
  deliveryCount: number;
  /** Set when the message sits in a dead-letter subqueue: what the broker says about it. */
  deadLetter?: { reason: string | undefined; description: string | undefined; source?: string };
}

/** The wire: a received message never shares objects with what was sent. */
export function encode(message: ServiceBusMessage): ServiceBusMessage {
  return structuredClone(message);
}

/**
 * A real ServiceBusReceivedMessage, every required field set, as the SDK hands it over. A peeked
 * message (token "") has no lock.
 */
export function received(stored: Stored, lock: { token: string; until: number }): ServiceBusReceivedMessage {
  const sent = encode(stored.sent);
  const applicationProperties = sent.applicationProperties ?? {};
  return {
    ...sent,
    applicationProperties,
    ...(lock.token ? { lockToken: lock.token, lockedUntilUtc: new Date(lock.until) } : {}),
    ...(stored.deadLetter?.reason === undefined ? {} : { deadLetterReason: stored.deadLetter.reason }),
    ...(stored.deadLetter?.source === undefined ? {} : { deadLetterSource: stored.deadLetter.source }),
    ...(stored.deadLetter?.description === undefined
      ? {}
      : { deadLetterErrorDescription: stored.deadLetter.description }),
    deliveryCount: stored.deliveryCount,
    enqueuedTimeUtc: new Date(stored.enqueuedAt),
    sequenceNumber: long(stored.sequenceNumber),
    enqueuedSequenceNumber: stored.sequenceNumber,
    state: 'active',
    _rawAmqpMessage: {
      body: sent.body,
      bodyType: 'data',
      applicationProperties,
      header: { deliveryCount: stored.deliveryCount },
      properties: {
        ...(sent.messageId === undefined ? {} : { messageId: sent.messageId }),
        ...(sent.correlationId === undefined ? {} : { correlationId: sent.correlationId }),
        ...(sent.subject === undefined ? {} : { subject: sent.subject }),
        ...(sent.contentType === undefined ? {} : { contentType: sent.contentType }),
      },
    },
  };
}
