import { describe, expect, it } from 'vitest';
import { RetryTopologyError } from '../../../runtime';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import { flush } from '../../support/fake-clock';
import { billingPlan } from '../plan-fixture';
import { delivery, recordingChannel } from './recording-channel';

const plan = billingPlan({
  targets: {
    rabbitmq: { exchange: 'bookstore.ordering', routingKey: 'order.placed', brokerVersion: '3.10.8' },
  },
} as never);

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const codeOf = (error: unknown) => (error instanceof RetryTopologyError ? error.code : error);

describe('how a RabbitMQ consumer ends', () => {
  it('a cancel from the broker calls onCancel at once, and closed rejects once in-flight deliveries settled', async () => {
    const { channel, calls, deliver } = recordingChannel();
    const held = gate();
    const cancels: unknown[] = [];
    const consumer = await consumeWithRetries(channel, plan, () => held.opened, {
      onCancel: (error) => cancels.push(error),
    });
    let outcome: unknown = 'pending';
    consumer.closed.then(
      () => {
        outcome = 'resolved';
      },
      (error) => {
        outcome = error;
      },
    );
    deliver(delivery({}, 1));
    deliver(null);
    await flush();
    expect(cancels.map(codeOf)).toEqual(['consumer-cancelled']);
    // The handler still runs; closed waits for it, so its ack is not lost.
    expect(outcome).toBe('pending');
    held.open();
    await flush();
    expect(codeOf(outcome)).toBe('consumer-cancelled');
    expect(outcome).toBe(cancels[0]);
    expect(calls).toEqual([{ call: 'ack', tag: 1 }]);
  });

  it('stop() resolves closed; a stopped consumer is not told about a later channel close', async () => {
    const { channel } = recordingChannel();
    const consumer = await consumeWithRetries(channel, plan, async () => {});
    await consumer.stop();
    await expect(consumer.closed).resolves.toBeUndefined();
  });

  it('an unwatched rejection of closed is not an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { channel, deliver } = recordingChannel();
      await consumeWithRetries(channel, plan, async () => {});
      deliver(null);
      await flush();
      await flush();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  const shapes: Array<[string, (signal: AbortSignal) => unknown]> = [
    ['the signal’s reason (fetch)', (signal) => signal.reason],
    ['an AbortError (timers/promises, drivers)', () => new DOMException('aborted', 'AbortError')],
  ];
  it.each(shapes)(
    'stop() gives back a message whose handler honours the stop and rejects with %s: no copy, no dead letter',
    async (_shape, rejection) => {
      const { channel, calls, deliver } = recordingChannel();
      const consumer = await consumeWithRetries(
        channel,
        plan,
        (_message, { signal }) =>
          new Promise<void>((_resolve, reject) =>
            signal.addEventListener('abort', () => reject(rejection(signal)), { once: true }),
          ),
      );
      deliver(delivery({}, 1));
      deliver(delivery({ 'retry-attempt': 3 }, 2));
      await flush();
      await consumer.stop();
      expect(calls).toEqual([
        { call: 'nack', tag: 1, requeue: true },
        { call: 'nack', tag: 2, requeue: true },
      ]);
    },
  );

  it('stop() resolves at its deadline while a handler ignores the signal; the message goes back, and its later end settles nothing', async () => {
    const { channel, calls, deliver } = recordingChannel();
    const held = gate();
    const consumer = await consumeWithRetries(
      channel,
      plan,
      async (message) => {
        if (message.fields.deliveryTag === 2) {
          await held.opened;
          throw new Error('unknown, after the deadline');
        }
      },
      { stopTimeoutMs: 20 },
    );
    deliver(delivery({}, 1));
    deliver(delivery({}, 2));
    await flush();
    await consumer.stop();
    expect(calls).toEqual([
      { call: 'ack', tag: 1 },
      { call: 'nack', tag: 2, requeue: true },
    ]);
    held.open();
    await flush();
    await flush();
    // No dead letter, no second settle of tag 2 (that would fail the channel with 406).
    expect(calls).toHaveLength(2);
  });

  it.each([-1, Number.NaN])('refuses stopTimeoutMs %s with a code', async (stopTimeoutMs) => {
    const { channel } = recordingChannel();
    await expect(consumeWithRetries(channel, plan, async () => {}, { stopTimeoutMs })).rejects.toMatchObject({
      code: 'invalid-option',
    });
  });
});
