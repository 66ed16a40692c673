import { describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import { FakeClock, flush } from '../../support/fake-clock';
import { billingPlan, httpError } from '../plan-fixture';
import { delivery, recordingChannel } from './recording-channel';

/**
 * The two modes a 3.10.8 broker cannot run (quorum-delayed-retry needs 4.3, delivery-time 4.4),
 * checked against a channel that records what the consumer asks of it.
 */
async function failOnce(
  mode: string,
  brokerVersion: string,
  headers: Record<string, unknown> = {},
  redelivered = false,
) {
  const plan = billingPlan({
    targets: {
      rabbitmq: { exchange: 'bookstore.ordering', routingKey: 'order.placed', mode, brokerVersion },
    },
  } as never);
  const clock = new FakeClock();
  const { channel, calls, deliver } = recordingChannel();
  const seen: number[] = [];
  await consumeWithRetries(
    channel,
    plan,
    async (_message, context) => {
      seen.push(context.attempt);
      throw httpError(503);
    },
    { clock, random: () => 0.5 },
  );
  const message = delivery(headers);
  deliver({ ...message, fields: { ...message.fields, redelivered } });
  await flush();
  await flush();
  return { calls, seen, clock, plan };
}

describe('quorum-delayed-retry (RabbitMQ 4.3+)', () => {
  it('rejects with requeue for the broker to hold, and publishes nothing', async () => {
    const { calls, seen } = await failOnce('quorum-delayed-retry', '4.3.0');
    expect(seen).toEqual([1]);
    expect(calls).toEqual([{ call: 'reject', tag: 1, requeue: true }]);
  });

  it('reads the attempt from x-delivery-count, and dead-letters the last one', async () => {
    const { calls, seen } = await failOnce(
      'quorum-delayed-retry',
      '4.3.0',
      { 'x-delivery-count': 3, 'x-acquired-count': 3 },
      true,
    );
    expect(seen).toEqual([4]);
    expect(calls.map((each) => each.call)).toEqual(['publish', 'ack']);
    expect(calls[0]?.options?.headers).toMatchObject({ [HEADERS.reason]: 'exhausted', [HEADERS.attempt]: 4 });
  });

  it.each([
    ['on a first delivery', { 'x-delivery-count': 99 }, false],
    ['above the broker’s x-acquired-count', { 'x-delivery-count': 99, 'x-acquired-count': 1 }, true],
  ])(
    'ignores an x-delivery-count the publisher wrote (%s): attempt 1, rejected for a retry',
    async (_name, headers, redelivered) => {
      const { calls, seen } = await failOnce('quorum-delayed-retry', '4.3.0', headers, redelivered);
      expect(seen).toEqual([1]);
      expect(calls).toMatchObject([{ call: 'reject', requeue: true }]);
    },
  );

  it('leaves out retry-first-failure-at after attempt 1: the broker keeps no time of the first failure', async () => {
    const { calls } = await failOnce(
      'quorum-delayed-retry',
      '4.3.0',
      { 'x-delivery-count': 3, 'x-acquired-count': 3 },
      true,
    );
    expect(calls[0]?.options?.headers).not.toHaveProperty(HEADERS.firstFailureAt);
    expect(calls[0]?.options?.headers).toHaveProperty(HEADERS.deadLetteredAt);
  });

  it('writes retry-first-failure-at on attempt 1, when the first failure is this one', async () => {
    const plan = billingPlan({
      maxAttempts: 1,
      backoff: { type: 'exponential', initial: '1s' },
      targets: {
        rabbitmq: {
          exchange: 'bookstore.ordering',
          routingKey: 'order.placed',
          mode: 'quorum-delayed-retry',
          brokerVersion: '4.3.0',
        },
      },
    } as never);
    const clock = new FakeClock();
    const { channel, calls, deliver } = recordingChannel();
    await consumeWithRetries(channel, plan, async () => Promise.reject(httpError(503)), { clock });
    deliver(delivery());
    await flush();
    await flush();
    expect(calls[0]?.options?.headers).toMatchObject({
      [HEADERS.reason]: 'exhausted',
      [HEADERS.attempt]: 1,
      [HEADERS.firstFailureAt]: clock.now(),
    });
  });
});

describe('delivery-time (RabbitMQ 4.4+)', () => {
  it('publishes a copy back to the main queue with x-opt-delivery-time, then acks', async () => {
    const { calls, seen, clock, plan } = await failOnce('delivery-time', '4.4.0');
    const rabbit = plan.targets.rabbitmq;
    expect(seen).toEqual([1]);
    expect(calls.map((each) => each.call)).toEqual(['publish', 'ack']);
    expect(calls[0]).toMatchObject({ exchange: rabbit?.retryExchange, routingKey: rabbit?.mainQueue });
    expect(calls[0]?.options).toMatchObject({
      persistent: true,
      mandatory: true,
      messageId: 'msg-1',
      contentType: 'application/json',
      headers: { [HEADERS.attempt]: 2, 'x-opt-delivery-time': clock.now() + 1_000 },
    });
  });
});
