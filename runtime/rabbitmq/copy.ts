import type { ConsumeMessage, Options } from 'amqplib';
import { HEADERS } from '../dead-letter';
import { isBrokerHeader } from './broker-headers';
import { PUBLISH_ID_HEADER } from './confirm';

/**
 * The properties of a copy the runtime republishes (retry or dead letter): body and properties
 * as they were, persistent, with our headers added. Three properties are left behind:
 * `expiration` (a per-message TTL would cut the wait short in a wait queue), `userId` (the broker
 * refuses one that is not the publishing connection's user) and the headers the broker wrote
 * (broker-headers.ts). Application headers, `x-` ones included, are kept.
 */
export function copyProperties(
  message: ConsumeMessage,
  headers: Record<string, unknown>,
): Options.Publish & { headers: Record<string, unknown> } {
  const p = message.properties;
  const kept: Record<string, unknown> = {};
  const incoming = p.headers;
  if (incoming) {
    for (const key in incoming) {
      if (key !== PUBLISH_ID_HEADER && !isBrokerHeader(key)) kept[key] = incoming[key];
    }
  }
  for (const key in headers) kept[key] = headers[key];
  const options: Options.Publish & { headers: Record<string, unknown> } = { persistent: true, headers: kept };
  if (p.contentType !== undefined) options.contentType = p.contentType;
  if (p.contentEncoding !== undefined) options.contentEncoding = p.contentEncoding;
  if (p.priority !== undefined) options.priority = p.priority;
  if (p.correlationId !== undefined) options.correlationId = p.correlationId;
  if (p.replyTo !== undefined) options.replyTo = p.replyTo;
  if (p.messageId !== undefined) options.messageId = p.messageId;
  if (p.timestamp !== undefined) options.timestamp = p.timestamp;
  if (p.type !== undefined) options.type = p.type;
  if (p.appId !== undefined) options.appId = p.appId;
  return options;
}

/** When the message first failed: carried on copies, else now. */
export function firstFailureAt(message: ConsumeMessage, now: number): number {
  const value = Number(message.properties.headers?.[HEADERS.firstFailureAt]);
  return Number.isFinite(value) && value > 0 ? value : now;
}
