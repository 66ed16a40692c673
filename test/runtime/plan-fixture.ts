import type { PolicyInput, RetryPlan } from '../../policy';
import { billingPlanFor } from '../support/billing-policy';

/** The billing policy on every target: 4 attempts, waits of 1 s, 2 s and 4 s, 503 transient, invalid currency permanent. */
export function billingPlan(changes: Partial<PolicyInput['spec']> = {}): RetryPlan {
  return billingPlanFor(
    'billing.order-placed',
    {
      rabbitmq: { exchange: 'bookstore.ordering', routingKey: 'order.placed', brokerVersion: '3.10.8' },
      kafka: { topic: 'bookstore.orders', consumerGroup: 'billing', partitions: 3, replicationFactor: 1 },
      serviceBus: { entity: 'queue', queue: 'orders' },
    },
    changes,
  );
}

/** An error like an HTTP client's. */
export function httpError(status: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`HTTP ${status}`), { name: 'HttpRequestError', status, headers });
}

export class InvalidCurrencyError extends Error {}
