import { createHash } from 'node:crypto';
import { encodeValue } from './archive';

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, each]) => each !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, each]) => `${JSON.stringify(key)}:${canonical(each)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * An id for a message the broker gives none to (a RabbitMQ queue has no stable message id): the
 * first 16 hex digits of a SHA-256 over its properties, headers and body. Two identical messages
 * share it, and are interchangeable for every command.
 */
export function contentDigest(
  properties: Record<string, unknown>,
  headers: Record<string, unknown>,
  body: Buffer,
) {
  return createHash('sha256')
    .update(canonical(encodeValue(properties)))
    .update('\n')
    .update(canonical(encodeValue(headers)))
    .update('\n')
    .update(body)
    .digest('hex')
    .slice(0, 16);
}
