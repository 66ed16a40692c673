import { ServiceBusError } from '@azure/service-bus';
import { describe, expect, it } from 'vitest';
import { createServiceBusRetry, type ServiceBusRetryError } from '../../../runtime/servicebus';
import { FakeClock } from '../../support/fake-clock';
import { httpError } from '../plan-fixture';
import { FakeServiceBus } from './fake/bus';
import { queueHarness, serviceBusPlan } from './harness';

const subscriptionPlan = () =>
  serviceBusPlan({}, { entity: 'subscription', topic: 'bookstore.orders', subscription: 'billing' });

function thrownCode(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    return (error as ServiceBusRetryError).code;
  }
  return undefined;
}

describe('a subscription consumer', () => {
  it('schedules copies on its own retry queue, so other subscriptions see the message once', async () => {
    const plan = subscriptionPlan();
    const rules = plan.targets.serviceBus;
    expect(rules?.scheduleTo).toBe('billing.order-placed.retry');

    const clock = new FakeClock();
    const bus = new FakeServiceBus(clock);
    const subscriptions = bus.topic('bookstore.orders', { billing: {}, notification: {} });
    const retryQueue = bus.queue('billing.order-placed.retry');
    const seen: Array<[string, number]> = [];
    const retry = createServiceBusRetry(plan, {
      sender: bus.sender('billing.order-placed.retry'),
      clock,
      random: () => 0.5,
      onError: () => {},
      handler: async (message, { attempt }) => {
        seen.push([message.messageId as string, attempt]);
        if (attempt === 1) throw httpError(503);
      },
    });
    // The README wiring: one receiver for the subscription, one for the retry queue.
    retry.subscribe(bus.receiver('bookstore.orders/Subscriptions/billing'), { processError: async () => {} });
    retry.subscribe(bus.receiver('billing.order-placed.retry'), { processError: async () => {} });
    await bus.sender('bookstore.orders').sendMessages({ body: {}, messageId: 'msg-A' });
    await clock.advance(10_000);

    expect(seen).toEqual([
      ['msg-A', 1],
      ['msg-A', 2],
    ]);
    expect(retryQueue.completed).toHaveLength(1);
    expect(subscriptions.billing?.completed).toHaveLength(1);
    // Notification got the message once, from the producer, and never a retry copy.
    expect(subscriptions.notification?.active).toHaveLength(1);
  });

  it('refuses a sender on the topic, where copies would reach every subscription', () => {
    const bus = new FakeServiceBus(new FakeClock());
    bus.topic('bookstore.orders', { billing: {} });
    const code = thrownCode(() =>
      createServiceBusRetry(subscriptionPlan(), {
        sender: bus.sender('bookstore.orders'),
        handler: async () => {},
      }),
    );
    expect(code).toBe('wrong-entity');
  });
});

describe('wiring checks', () => {
  it('refuses a receiver on another entity', async () => {
    const { bus, retry } = queueHarness(serviceBusPlan(), async () => {});
    bus.queue('payments');
    expect(
      thrownCode(() => retry.subscribe(bus.receiver('payments'), { processError: async () => {} })),
    ).toBe('wrong-entity');
  });

  it('refuses a receiver in receiveAndDelete mode, where nothing can be settled', async () => {
    const { receiver, retry } = queueHarness(serviceBusPlan(), async () => {});
    const deleting = Object.assign(Object.create(receiver), { receiveMode: 'receiveAndDelete' as const });
    expect(thrownCode(() => retry.subscribe(deleting, { processError: async () => {} }))).toBe(
      'not-peek-lock',
    );
  });

  it('matches entity names without regard to case, as Service Bus does', () => {
    const bus = new FakeServiceBus(new FakeClock());
    bus.queue('ORDERS');
    expect(() =>
      createServiceBusRetry(serviceBusPlan(), { sender: bus.sender('ORDERS'), handler: async () => {} }),
    ).not.toThrow();
  });
});

describe('a settle call that fails', () => {
  it('reports it, and the message comes back when its lock expires: a duplicate, not a loss', async () => {
    const harness = queueHarness(serviceBusPlan(), async () => {});
    const { receiver, retry, clock, queue, errors, send, seen } = harness;
    receiver.failNext('completeMessage', new ServiceBusError('link detached', 'ServiceTimeout'));
    retry.subscribe(receiver, { processError: async () => {} });
    await send([{ body: {}, messageId: 'msg-A' }]);
    await clock.advance(61_000);
    expect(errors.map((error) => error.code)).toEqual(['settle-failed']);
    expect(seen.map((each) => each.deliveryCount)).toEqual([0, 1]);
    expect(queue.completed).toHaveLength(1);
  });
});
