import type { ConsumeMessage } from 'amqplib';
import { describe, expect, it } from 'vitest';
import { isBrokerHeader } from '../../../runtime/rabbitmq/broker-headers';
import { copyProperties } from '../../../runtime/rabbitmq/copy';

function delivery(headers: Record<string, unknown>): ConsumeMessage {
  return {
    content: Buffer.from('{}'),
    fields: { deliveryTag: 1 },
    properties: { headers, messageId: 'm-1', expiration: '60000', userId: 'someone' },
  } as unknown as ConsumeMessage;
}

const application = {
  'x-request-id': 'req-1',
  'x-correlation-id': 'corr-1',
  'x-message-id': 'msg-1',
  'x-tenant': 'acme',
  'x-priority-hint': 'high',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'congo=t61rcWkgMzE',
  tenant: 'acme',
};

const broker = {
  'x-death': [{ count: 1, reason: 'expired', queue: 'q.wait.1' }],
  'x-first-death-reason': 'expired',
  'x-first-death-queue': 'q.wait.1',
  'x-first-death-exchange': '',
  'x-last-death-reason': 'expired',
  'x-last-death-queue': 'q.wait.1',
  'x-last-death-exchange': '',
  'x-delivery-count': 2,
  'x-acquired-count': 3,
  'x-stream-offset': 10,
  'x-opt-delivery-time': 1_700_000_000_000,
  'x-opt-deferral-token': 'token',
  'x-basic-type': 'order',
  'x-routing-key': 'order.placed',
  'x-exchange': 'bookstore.ordering',
  'x-received-from': [{ uri: 'amqp://upstream' }],
  'x-shovelled': [{ 'shovel-name': 's' }],
  'x-shovelled-timestamp': 1,
  CC: ['order.audit'],
  BCC: ['order.secret'],
};

describe('copyProperties', () => {
  it('keeps every application header, x- ones included, and drops what the broker wrote', () => {
    const options = copyProperties(delivery({ ...application, ...broker, 'retry-publish-id': 'p-1' }), {
      'retry-attempt': 2,
    });
    expect(options.headers).toEqual({ ...application, 'retry-attempt': 2 });
    expect(options).toMatchObject({ persistent: true, messageId: 'm-1' });
    expect(options.expiration).toBeUndefined();
    expect(options.userId).toBeUndefined();
  });

  it('lets the runtime’s own headers win over what the message carried', () => {
    const options = copyProperties(delivery({ 'retry-attempt': 'abc' }), { 'retry-attempt': 2 });
    expect(options.headers).toEqual({ 'retry-attempt': 2 });
  });
});

describe('isBrokerHeader', () => {
  it.each(Object.keys(broker))('%s is the broker’s', (name) => expect(isBrokerHeader(name)).toBe(true));
  it.each(Object.keys(application))('%s is the application’s', (name) =>
    expect(isBrokerHeader(name)).toBe(false),
  );
});
