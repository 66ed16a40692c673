import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { readDeadLetterMetadata, reasonGroup } from '../dead-letters/metadata';
import type { DeadLetter } from '../dead-letters/types';
import { messageIdOf } from './message-id';

/** The body as bytes, and what it was: Service Bus bodies may be bytes, text or a JSON value. */
export function bodyBytes(body: unknown): { bytes: Buffer; bodyKind: 'bytes' | 'text' | 'json' } {
  if (body instanceof Uint8Array) return { bytes: Buffer.from(body), bodyKind: 'bytes' };
  if (typeof body === 'string') return { bytes: Buffer.from(body, 'utf8'), bodyKind: 'text' };
  return { bytes: Buffer.from(JSON.stringify(body) ?? '', 'utf8'), bodyKind: 'json' };
}

const KEPT = [
  'correlationId',
  'subject',
  'contentType',
  'to',
  'replyTo',
  'replyToSessionId',
  'sessionId',
  'partitionKey',
  'deadLetterReason',
  'deadLetterErrorDescription',
  'deadLetterSource',
  'deliveryCount',
  'sequenceNumber',
  'enqueuedTimeUtc',
] as const;

/**
 * A message of a dead-letter subqueue as a DeadLetter. Its id is its sequence number, with the
 * subqueue's tag in front when the target has two (`retry:42`).
 */
export function readServiceBusDeadLetter(
  message: ServiceBusReceivedMessage,
  location: { path: string; tag?: string; entity: string },
): DeadLetter {
  const headers: Record<string, unknown> = { ...(message.applicationProperties ?? {}) };
  const metadata = readDeadLetterMetadata((name) => headers[name]);
  const brokerReason = metadata.reason ? undefined : message.deadLetterReason;
  const { bytes, bodyKind } = bodyBytes(message.body);
  const properties: Record<string, unknown> = { bodyKind };
  for (const key of KEPT) if (message[key] !== undefined) properties[key] = message[key];
  const sequence = String(message.sequenceNumber ?? '');
  const letter: DeadLetter = {
    id: location.tag ? `${location.tag}:${sequence}` : sequence,
    location: location.path,
    reason: reasonGroup(metadata, brokerReason),
    replays: metadata.replays,
    headers,
    properties,
    body: bytes,
  };
  const optional = {
    messageId: messageIdOf(message),
    brokerReason,
    errorName: metadata.errorName,
    errorMessage: metadata.errorMessage,
    attempt: metadata.attempt,
    attemptInvalid: metadata.attemptInvalid,
    source: metadata.source ?? message.deadLetterSource ?? location.entity,
    firstFailureAt: metadata.firstFailureAt,
    deadLetteredAt: metadata.deadLetteredAt ?? message.enqueuedTimeUtc?.getTime(),
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) Object.assign(letter, { [key]: value });
  return letter;
}
