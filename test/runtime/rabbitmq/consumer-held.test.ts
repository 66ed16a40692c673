import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import { FakeClock, flush } from '../../support/fake-clock';
import { billingPlan, httpError, InvalidCurrencyError } from '../plan-fixture';
import { delivery, recordingChannel } from './recording-channel';

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
process.on('warning', onWarning);
afterEach(() => {
  warnings.length = 0;
});

const plan = billingPlan({
  targets: {
    rabbitmq: { exchange: 'bookstore.ordering', routingKey: 'order.placed', brokerVersion: '3.10.8' },
  },
} as never);

describe('copies a full wait queue refuses, held by the consumer', () => {
  it('holds 40 of them (and 40 handlers listening on the stop signal) without a MaxListenersExceededWarning', async () => {
    const clock = new FakeClock();
    const { channel, calls, deliver } = recordingChannel({ refuse: (exchange) => exchange !== '' });
    const consumer = await consumeWithRetries(
      channel,
      plan,
      async (_message, { signal }) => {
        // What a handler passing the signal to fetch or a driver does.
        signal.addEventListener('abort', () => {}, { once: true });
        throw httpError(503);
      },
      { clock, random: () => 0.5, prefetch: 40 },
    );
    for (let tag = 1; tag <= 40; tag++) deliver(delivery({}, tag));
    await clock.advance(5_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    // All held: nothing acked, and the broker sees one try at a time, not 40 every back-off step.
    expect(calls.filter((call) => call.call === 'ack')).toEqual([]);
    const publishes = calls.filter((call) => call.call === 'publish').length;
    expect(publishes).toBeGreaterThan(40);
    expect(publishes).toBeLessThan(40 + 40);

    await consumer.stop();
    await flush();
    // Stopping gives every held message back to the queue.
    expect(calls.filter((call) => call.call === 'nack' && call.requeue)).toHaveLength(40);
    expect(clock.pending).toBe(0);
  });
});

describe('a dead letter the broker refuses, held by the consumer', () => {
  const deadLetterExchange = plan.targets.rabbitmq?.deadLetterExchange ?? '';

  it('is tried again until the broker takes it, with its reason, and only then acked', async () => {
    const clock = new FakeClock();
    let full = true;
    const refusals: unknown[] = [];
    const { channel, calls, deliver } = recordingChannel({
      refuse: (exchange) => full && exchange === deadLetterExchange,
    });
    const consumer = await consumeWithRetries(
      channel,
      plan,
      async () => {
        throw new InvalidCurrencyError('XXX');
      },
      { clock, random: () => 0.5, onError: (error) => refusals.push(error) },
    );
    deliver(delivery({}, 1));
    await clock.advance(10_000);
    // Held: refused and tried again with a back-off, neither acked nor rejected to the broker's DLX.
    expect(refusals.length).toBeGreaterThanOrEqual(2);
    expect(calls.filter((call) => call.call !== 'publish')).toEqual([]);

    full = false;
    await clock.advance(30_000);
    await flush();
    const taken = calls.filter((call) => call.call === 'publish').at(-1);
    expect(taken?.exchange).toBe(deadLetterExchange);
    expect(taken?.options?.headers?.[HEADERS.reason]).toBe('permanent');
    expect(calls.filter((call) => call.call !== 'publish')).toEqual([{ call: 'ack', tag: 1 }]);
    await consumer.stop();
  });

  it('goes back to its queue when the consumer stops first', async () => {
    const clock = new FakeClock();
    const { channel, calls, deliver } = recordingChannel({
      refuse: (exchange) => exchange === deadLetterExchange,
    });
    const consumer = await consumeWithRetries(
      channel,
      plan,
      async () => {
        throw new InvalidCurrencyError('XXX');
      },
      { clock, random: () => 0.5 },
    );
    deliver(delivery({}, 1));
    await clock.advance(5_000);
    await consumer.stop();
    await flush();
    expect(calls.filter((call) => call.call !== 'publish')).toEqual([
      { call: 'nack', tag: 1, requeue: true },
    ]);
    expect(clock.pending).toBe(0);
  });
});
