import type { RabbitExchangeSpec, RabbitMqPlan, RabbitPermissionSpec, RabbitQueueSpec } from '../../policy';
import { assertUniqueKeys } from '../children';
import { TopologyError } from '../errors';
import type { Lifecycle } from '../options';

/**
 * RabbitMQ plan → the exact arguments of every child resource. Pure: the component only loops
 * over this. Each child's key (its logical name after the component's name) comes from its role
 * and level, never from an entity name or a delay, so a child keeps its URN across policy edits.
 */

export interface RabbitExchangeChild {
  key: string;
  lifecycle: Lifecycle;
  args: {
    name: string;
    vhost: string;
    settings: { type: RabbitExchangeSpec['type']; durable: boolean; autoDelete: boolean };
  };
}

export interface RabbitPolicyChild {
  key: string;
  lifecycle: Lifecycle;
  args: {
    name: string;
    vhost: string;
    policy: { pattern: string; applyTo: string; priority: number; definition: Record<string, string> };
  };
}

export interface RabbitQueueChild {
  key: string;
  role: RabbitQueueSpec['role'];
  level?: number;
  /** The policy child that carries this queue's mutable settings; created before the queue. */
  policyKey: string;
  lifecycle: Lifecycle;
  args: {
    name: string;
    vhost: string;
    settings: { durable: boolean; autoDelete: boolean; argumentsJson: string };
  };
}

export interface RabbitBindingChild {
  key: string;
  lifecycle: Lifecycle;
  /** The exchange child this binds from; absent when the producer owns the source exchange. */
  exchangeKey?: string;
  /** The queue child this binds to: the component takes `destination` from that queue's output. */
  queueKey: string;
  /** The source exchange's binding lets messages in: it is created after every other binding. */
  opensInflow: boolean;
  args: { source: string; destination: string; destinationType: 'queue'; routingKey: string; vhost: string };
}

export interface RabbitMqSpecs {
  vhost: string;
  exchanges: RabbitExchangeChild[];
  policies: RabbitPolicyChild[];
  queues: RabbitQueueChild[];
  bindings: RabbitBindingChild[];
  permissions: RabbitPermissionSpec;
}

const EXCHANGE_KEYS: Record<RabbitExchangeSpec['role'], string> = {
  source: 'source-exchange',
  'dead-letter': 'dlx',
  retry: 'retry-exchange',
};

export function rabbitQueueKey(queue: Pick<RabbitQueueSpec, 'role' | 'level'>): string {
  switch (queue.role) {
    case 'main':
      return 'main-queue';
    case 'dead-letter':
      return 'dlq';
    case 'wait':
      if (queue.level === undefined)
        throw new TopologyError('inconsistent-plan', 'a wait queue has no level');
      return `wait-${queue.level}`;
  }
}

/**
 * Policy definition values are strings in the SDK. The Terraform provider underneath (cyrilgdn
 * terraform-provider-rabbitmq v1.8.0, putPolicy) turns every integer-looking string back into an
 * int64 before it calls the management API, so String(1000) reaches the broker as the number 1000,
 * which quorum queues require (a string TTL is rejected with "expected integer", checked on
 * 3.10.8). The names rule refuses all-digit queue names so that a routing key is never mistaken
 * for a number on the way.
 */
export function policyDefinition(definition: Record<string, string | number>): Record<string, string> {
  return Object.fromEntries(Object.entries(definition).map(([key, value]) => [key, String(value)]));
}

function queueLifecycle(role: RabbitQueueSpec['role']): Lifecycle {
  return role === 'wait' ? 'retry-level' : 'lasting';
}

function byName<T extends { name: string }>(items: readonly T[], what: string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    if (map.has(item.name))
      throw new TopologyError('inconsistent-plan', `the plan names ${what} "${item.name}" twice`);
    map.set(item.name, item);
  }
  return map;
}

export function rabbitMqSpecs(plan: RabbitMqPlan): RabbitMqSpecs {
  const { vhost } = plan;
  const exchangesByName = byName(plan.exchanges, 'exchange');
  const queuesByName = byName(plan.queues, 'queue');
  const policiesByName = byName(plan.policies, 'policy');

  const queues: RabbitQueueChild[] = [];
  const policies: RabbitPolicyChild[] = [];
  for (const queue of plan.queues) {
    const key = rabbitQueueKey(queue);
    const policy = policiesByName.get(queue.policy);
    if (!policy) {
      throw new TopologyError(
        'inconsistent-plan',
        `queue "${queue.name}" names policy "${queue.policy}", which the plan lacks`,
      );
    }
    const lifecycle = queueLifecycle(queue.role);
    policies.push({
      key: `${key}-policy`,
      lifecycle,
      args: {
        name: policy.name,
        vhost,
        policy: {
          pattern: policy.pattern,
          applyTo: policy.applyTo,
          priority: policy.priority,
          definition: policyDefinition(policy.definition),
        },
      },
    });
    queues.push({
      key,
      role: queue.role,
      ...(queue.level === undefined ? {} : { level: queue.level }),
      policyKey: `${key}-policy`,
      lifecycle,
      args: {
        name: queue.name,
        vhost,
        settings: {
          durable: queue.durable,
          autoDelete: queue.autoDelete,
          // argumentsJson, not `arguments`: the string map would send every value as a string.
          argumentsJson: JSON.stringify(queue.arguments),
        },
      },
    });
  }

  const exchanges: RabbitExchangeChild[] = plan.exchanges
    .filter((exchange) => exchange.declare)
    .map((exchange) => ({
      key: EXCHANGE_KEYS[exchange.role],
      // A declared source exchange is shared with the producer and every other consumer.
      lifecycle: exchange.role === 'source' ? 'lasting' : 'plain',
      args: {
        name: exchange.name,
        vhost,
        settings: { type: exchange.type, durable: exchange.durable, autoDelete: exchange.autoDelete },
      },
    }));

  const bindings: RabbitBindingChild[] = plan.bindings.map((binding) => {
    const exchange = exchangesByName.get(binding.source);
    const queue = queuesByName.get(binding.destination);
    if (!exchange || !queue) {
      throw new TopologyError(
        'inconsistent-plan',
        `binding ${binding.source} → ${binding.destination}: the plan has no ${exchange ? 'queue' : 'exchange'} of that name`,
      );
    }
    const exchangeKey = EXCHANGE_KEYS[exchange.role];
    const queueKey = rabbitQueueKey(queue);
    return {
      key: `${exchangeKey}-to-${queueKey}`,
      lifecycle: queue.role === 'wait' ? 'retry-level' : 'plain',
      ...(exchange.declare ? { exchangeKey } : {}),
      queueKey,
      opensInflow: exchange.role === 'source',
      args: { ...binding, vhost },
    };
  });

  assertUniqueKeys([...exchanges, ...policies, ...queues, ...bindings]);

  return { vhost, exchanges, policies, queues, bindings, permissions: plan.consumerPermissions };
}
