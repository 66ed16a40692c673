import type { ServiceBusMessage } from '@azure/service-bus';
import type { PolicyInput, RetryPlan } from '../../../policy';
import { createMetrics, type MeterLike } from '../../../runtime';
import {
  createServiceBusRetry,
  type ServiceBusHandler,
  type ServiceBusRetryError,
  type ServiceBusRetryOptions,
} from '../../../runtime/servicebus';
import { FakeClock } from '../../support/fake-clock';
import { billingPlan } from '../plan-fixture';
import { FakeServiceBus } from './fake/bus';
import type { EntityOptions } from './fake/entity';

type ServiceBusInput = NonNullable<PolicyInput['spec']['targets']['serviceBus']>;

/**
 * The acceptance run on Service Bus: 4 attempts, waits of 2 s, 4 s and 8 s, no jitter, on the queue
 * `orders` unless `target` names a subscription.
 */
export function serviceBusPlan(
  changes: Partial<PolicyInput['spec']> = {},
  target: Partial<ServiceBusInput> = {},
): RetryPlan {
  const serviceBus = (
    target.entity === 'subscription' ? target : { entity: 'queue', queue: 'orders', ...target }
  ) as ServiceBusInput;
  return billingPlan({
    backoff: { type: 'list', delays: ['2s', '4s', '8s'] },
    targets: { serviceBus },
    ...changes,
  });
}

/** A meter that records what it is given, typed against the interface a real Meter satisfies. */
export function recordingMeter() {
  const records: Array<{ name: string; value: number; attributes?: Record<string, string | number> }> = [];
  const meter: MeterLike = {
    createCounter: (name) => ({ add: (value, attributes) => void records.push({ name, value, attributes }) }),
    createHistogram: (name) => ({
      record: (value, attributes) => void records.push({ name, value, attributes }),
    }),
  };
  return { meter, records };
}

export interface Seen {
  id: unknown;
  attempt: number;
  deliveryCount: number | undefined;
  at: number;
}

/** One queue `orders` on a fake bus, a consumer of it, and what the handler saw. */
export function queueHarness(
  plan: RetryPlan,
  handler: ServiceBusHandler,
  options: { queue?: EntityOptions; consumer?: Partial<ServiceBusRetryOptions> } = {},
) {
  const clock = new FakeClock();
  const bus = new FakeServiceBus(clock);
  const queue = bus.queue('orders', { lockDurationMs: 60_000, maxDeliveryCount: 5, ...options.queue });
  const sender = bus.sender('orders');
  const receiver = bus.receiver('orders');
  const { meter, records } = recordingMeter();
  const errors: ServiceBusRetryError[] = [];
  const seen: Seen[] = [];
  const retry = createServiceBusRetry(plan, {
    sender,
    clock,
    random: () => 0.5,
    metrics: createMetrics({ policy: plan.policy, target: 'serviceBus' }, meter),
    onError: (error) => errors.push(error),
    handler: async (message, context) => {
      seen.push({
        id: message.messageId,
        attempt: context.attempt,
        deliveryCount: message.deliveryCount,
        at: clock.now(),
      });
      await handler(message, context);
    },
    ...options.consumer,
  });
  /** Seconds since the start, for readable assertions. */
  const start = clock.now();
  const secondsOf = (at: number) => (at - start) / 1_000;
  const send = (messages: ServiceBusMessage[]) => sender.sendMessages(messages);
  return { clock, bus, queue, sender, receiver, retry, records, errors, seen, secondsOf, send };
}

/** Counter values by one attribute, for metric assertions. */
export function countsBy(
  records: ReturnType<typeof recordingMeter>['records'],
  name: string,
  attribute: string,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const record of records.filter((each) => each.name === name)) {
    const key = String(record.attributes?.[attribute]);
    out[key] = (out[key] ?? 0) + record.value;
  }
  return out;
}
