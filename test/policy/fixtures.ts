import type { PolicyInput } from '../../policy';

/** A policy with every target and no findings at all; tests change one thing at a time. */
export function cleanPolicy(): PolicyInput {
  return {
    apiVersion: 'retry-topology/v1',
    kind: 'RetryPolicy',
    metadata: { name: 'billing.order-placed' },
    spec: {
      consumer: 'billing',
      maxAttempts: 4,
      immediate: { retries: 1, delay: '200ms' },
      backoff: { type: 'exponential', initial: '1s', multiplier: 2, max: '4s' },
      jitter: 'equal',
      classify: {
        presets: ['http-transient'],
        permanent: { errorNames: ['InvalidCurrencyError'] },
      },
      messageTtl: '1h',
      deadline: '30m',
      innerLayers: [{ name: 'payment-http', attempts: 3 }],
      idempotency: { idempotent: true, key: 'orderId' },
      targets: {
        rabbitmq: {
          exchange: 'bookstore.ordering',
          routingKey: 'order.placed',
          queue: 'billing.order-placed',
          mode: 'delivery-time',
          brokerVersion: '4.4.0',
        },
        kafka: { topic: 'bookstore.orders', consumerGroup: 'billing', partitions: 6, replicationFactor: 3 },
        serviceBus: { entity: 'queue', queue: 'billing-orders' },
      },
    },
  };
}

/** A deep copy with one change at a path; `undefined` deletes the key. */
export function changed(
  path: ReadonlyArray<string | number>,
  value: unknown,
  base: unknown = cleanPolicy(),
): Record<string, unknown> {
  const copy = structuredClone(base) as Record<string, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1] as string | number;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

/** Several changes, applied in order. */
export function withChanges(
  changes: Array<[ReadonlyArray<string | number>, unknown]>,
): Record<string, unknown> {
  return changes.reduce<Record<string, unknown>>(
    (doc, [path, value]) => changed(path, value, doc),
    cleanPolicy() as Record<string, unknown>,
  );
}
