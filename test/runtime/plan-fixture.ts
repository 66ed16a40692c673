import { derivePlan, type PolicyInput, parsePolicy, type RetryPlan } from '../../policy';

/** The seeds' policy: 4 attempts, waits of 1 s, 2 s and 4 s, 503 transient, invalid currency permanent. */
export function seedPlan(changes: Partial<PolicyInput['spec']> = {}): RetryPlan {
  const input: PolicyInput = {
    apiVersion: 'retry-topology/v1',
    kind: 'RetryPolicy',
    metadata: { name: 'billing.order-placed' },
    spec: {
      consumer: 'billing',
      maxAttempts: 4,
      backoff: { type: 'list', delays: ['1s', '2s', '4s'] },
      jitter: 'none',
      classify: { presets: ['http-transient'], permanent: { errorNames: ['InvalidCurrencyError'] } },
      idempotency: { idempotent: true, key: 'orderId' },
      targets: {
        rabbitmq: { exchange: 'bookstore.ordering', routingKey: 'order.placed', brokerVersion: '3.10.8' },
        kafka: { topic: 'bookstore.orders', consumerGroup: 'billing', partitions: 3, replicationFactor: 1 },
        serviceBus: { entity: 'queue', queue: 'orders' },
      },
      ...changes,
    },
  };
  return derivePlan(parsePolicy(input));
}

/** An error like an HTTP client's. */
export function httpError(status: number, headers: Record<string, string> = {}): Error {
  return Object.assign(new Error(`HTTP ${status}`), { name: 'HttpRequestError', status, headers });
}

export class InvalidCurrencyError extends Error {}
