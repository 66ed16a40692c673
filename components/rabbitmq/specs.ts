import type { RabbitExchangeSpec, RabbitMqPlan, RabbitPermissionSpec, RabbitQueueSpec } from '../../policy';
import { assertUniqueKeys, creationOrder, identityOf } from '../children';
import { TopologyError } from '../errors';
import type { Lifecycle } from '../options';

/**
 * RabbitMQ plan → the exact arguments of every child resource, the order they are created in,
 * and the target's identity. Pure: the component only loops over this. Each child's key (its
 * logical name after the component's name) comes from its role and level, never from an entity
 * name or a delay, so a child keeps its URN across policy edits.
 *
 * Order: a child is created (and, on an update, written) only once every child it routes to
 * exists. A name that points at another child is taken from that child's output, so the engine
 * cannot write a policy that dead-letters to a queue before that queue has been created, and a
 * step that fails stops everything that points at it.
 */

export interface RabbitExchangeChild {
  key: string;
  lifecycle: Lifecycle;
  after: string[];
  args: {
    name: string;
    vhost: string;
    settings: { type: RabbitExchangeSpec['type']; durable: boolean; autoDelete: boolean };
  };
}

/** A policy definition's keys whose value names another child (its key here). */
export interface RabbitPolicyRefs {
  /** A declared exchange: the component takes its name from that exchange's output. */
  'dead-letter-exchange'?: string;
  /** A queue, when dead-lettering goes through the default exchange (the value is a queue name). */
  'dead-letter-routing-key'?: string;
}

export interface RabbitPolicyChild {
  key: string;
  lifecycle: Lifecycle;
  refs: RabbitPolicyRefs;
  /** Children created first, besides those in `refs`. */
  after: string[];
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
  after: string[];
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
  /** Children created first, besides the exchange and queue above. */
  after: string[];
  args: { source: string; destination: string; destinationType: 'queue'; routingKey: string; vhost: string };
}

export interface RabbitMqSpecs {
  vhost: string;
  exchanges: RabbitExchangeChild[];
  policies: RabbitPolicyChild[];
  queues: RabbitQueueChild[];
  bindings: RabbitBindingChild[];
  permissions: RabbitPermissionSpec;
  /** Every child key, each after every child it depends on: the order the component creates them in. */
  order: string[];
  /**
   * Every input whose change would replace a lasting child (all of a queue's, exchange's or
   * binding's inputs; a policy's name and vhost), and which lasting children exist. The
   * component's replacement trigger while messages are protected.
   */
  identity: Record<string, unknown>;
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

/** The retry exchange (and what it routes to) exists only in the modes that use it. */
function exchangeLifecycle(role: RabbitExchangeSpec['role']): Lifecycle {
  return role === 'retry' ? 'retry-level' : 'lasting';
}

/** A binding lasts when its exchange and queue both do. */
function bindingLifecycle(exchange: RabbitExchangeSpec['role'], queue: RabbitQueueSpec['role']): Lifecycle {
  return exchangeLifecycle(exchange) === 'lasting' && queueLifecycle(queue) === 'lasting'
    ? 'lasting'
    : 'retry-level';
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
      refs: policyRefs(policy.definition, exchangesByName, queuesByName),
      after: [],
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
      after: [`${key}-policy`],
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
      lifecycle: exchangeLifecycle(exchange.role),
      after: [],
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
      lifecycle: bindingLifecycle(exchange.role, queue.role),
      ...(exchange.declare ? { exchangeKey } : {}),
      queueKey,
      opensInflow: exchange.role === 'source',
      after: [],
      args: { ...binding, vhost },
    };
  });
  // Messages flow in only once the dead-letter path and the wait queues are bound.
  const inner = bindings.filter((binding) => !binding.opensInflow).map((binding) => binding.key);
  for (const binding of bindings) if (binding.opensInflow) binding.after.push(...inner);
  // A queue dead-letters through an exchange only once that exchange is bound to where it routes.
  for (const policy of policies) {
    const exchange = policy.refs['dead-letter-exchange'];
    if (exchange) {
      policy.after.push(...bindings.filter((binding) => binding.exchangeKey === exchange).map((b) => b.key));
    }
  }

  const all = [...exchanges, ...policies, ...queues, ...bindings];
  assertUniqueKeys(all);
  const order = creationOrder(all.map((child) => ({ key: child.key, after: dependenciesOf(child) })));
  const identity = identityOf([
    ...exchanges.filter(lasting).map((each) => ({ key: each.key, replacedBy: each.args })),
    // A queue's arguments are ignored on update (topology.ts): a changed replica count is for
    // queues declared from now on and replaces nothing, so it is no change of identity.
    ...queues.filter(lasting).map((each) => ({
      key: each.key,
      replacedBy: { ...each.args, settings: { ...each.args.settings, argumentsJson: undefined } },
    })),
    ...bindings.filter(lasting).map((each) => ({ key: each.key, replacedBy: each.args })),
    ...policies
      .filter(lasting)
      .map((each) => ({ key: each.key, replacedBy: { name: each.args.name, vhost: each.args.vhost } })),
  ]);

  return {
    vhost,
    exchanges,
    policies,
    queues,
    bindings,
    permissions: plan.consumerPermissions,
    order,
    identity,
  };
}

function lasting(child: { lifecycle: Lifecycle }): boolean {
  return child.lifecycle === 'lasting';
}

type RabbitChild = RabbitExchangeChild | RabbitPolicyChild | RabbitQueueChild | RabbitBindingChild;

/** Every child key a child waits for: its `after`, what its outputs come from. */
function dependenciesOf(child: RabbitChild): string[] {
  const keys = [...child.after];
  if ('refs' in child) keys.push(...Object.values(child.refs).filter((key) => key !== undefined));
  if ('queueKey' in child) {
    keys.push(child.queueKey);
    if (child.exchangeKey) keys.push(child.exchangeKey);
  }
  return keys;
}

/**
 * The definition keys that name another child. `dead-letter-routing-key` names a queue only when
 * dead-lettering goes through the default exchange (""); through a DLX it is a routing key.
 */
function policyRefs(
  definition: Record<string, string | number>,
  exchanges: ReadonlyMap<string, RabbitExchangeSpec>,
  queues: ReadonlyMap<string, RabbitQueueSpec>,
): RabbitPolicyRefs {
  const refs: RabbitPolicyRefs = {};
  const exchangeName = definition['dead-letter-exchange'];
  const exchange = typeof exchangeName === 'string' ? exchanges.get(exchangeName) : undefined;
  if (exchange?.declare) refs['dead-letter-exchange'] = EXCHANGE_KEYS[exchange.role];
  const routingKey = definition['dead-letter-routing-key'];
  const queue = typeof routingKey === 'string' ? queues.get(routingKey) : undefined;
  if (exchangeName === '' && queue) refs['dead-letter-routing-key'] = rabbitQueueKey(queue);
  return refs;
}
