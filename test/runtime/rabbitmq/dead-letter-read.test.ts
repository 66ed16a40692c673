import type { Message } from 'amqplib';
import { describe, expect, it } from 'vitest';
import { deadLetterHeaders } from '../../../runtime';
import { readRabbitDeadLetter } from '../../../runtime/rabbitmq/dead-letter-read';

function delivery(headers: Record<string, unknown>, body = '{"id":"m-1"}'): Message {
  return {
    content: Buffer.from(body),
    fields: {} as Message['fields'],
    properties: { messageId: 'm-1', contentType: 'application/json', headers } as Message['properties'],
  };
}

const metadata = deadLetterHeaders({
  reason: 'exhausted',
  because: 'transient: HTTP 503',
  errorName: 'HttpRequestError',
  errorMessage: 'HTTP 503',
  attempt: 4,
  source: 'orders.billing',
  firstFailureAt: 1_700_000_000_000,
  deadLetteredAt: 1_700_000_001_000,
});

describe('the id of a RabbitMQ dead letter', () => {
  it('stays the same however often a read gave the message back', () => {
    // Each read ends with a requeue, and the broker counts it: x-delivery-count on 3.10 and 4.0,
    // x-acquired-count on 4.3. A replay selects by id in one pass and takes in the next.
    const first = readRabbitDeadLetter(delivery({ ...metadata }), 'orders.dlq');
    const later = [
      { ...metadata, 'x-delivery-count': 3 },
      { ...metadata, 'x-acquired-count': 1 },
      { ...metadata, 'x-acquired-count': 7, 'x-delivery-count': 2 },
    ].map((headers) => readRabbitDeadLetter(delivery(headers), 'orders.dlq').id);
    expect(later).toEqual([first.id, first.id, first.id]);
  });

  it('differs when the message does: its body, or a header of its own', () => {
    const id = readRabbitDeadLetter(delivery({ ...metadata }), 'orders.dlq').id;
    expect(readRabbitDeadLetter(delivery({ ...metadata }, '{"id":"m-2"}'), 'orders.dlq').id).not.toBe(id);
    expect(readRabbitDeadLetter(delivery({ ...metadata, 'x-tenant': 'b' }), 'orders.dlq').id).not.toBe(id);
  });
});
