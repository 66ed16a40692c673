import { parseVersion, versionAtLeast } from '../broker-version';
import type { Policy, RabbitTarget } from '../types';
import { rabbitNames } from './names';
import { QUORUM_REPLICAS_ARGUMENT, quorumReplication } from './replication';
import { deliveryRules, fixedRange, jitterRange, linearDelays } from './timeline';
import type { Level, RabbitMqPlan, RabbitPolicySpec, RabbitQueueSpec } from './types';

/**
 * RabbitMQ topology. Queue arguments hold only the queue type, which can never change. Every
 * mutable setting (TTL, dead-lettering, limits) lives in a per-queue RabbitMQ policy, which the
 * broker applies in place: changing a delay never redeclares, and never deletes, a queue.
 * Checked on 3.10.8: quorum queues honour these policy keys, and a policy TTL change takes effect
 * for the next message with no redeclare.
 */

export const ATTEMPT_HEADER = 'retry-attempt';

/** A crash loop is stopped after this many failed deliveries of one copy. */
export const RABBIT_DEFAULT_DELIVERY_LIMIT = 5;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The x- argument names a policy key corresponds to, for the effective view. */
function asArguments(definition: Record<string, string | number>): Record<string, string | number> {
  return Object.fromEntries(Object.entries(definition).map(([key, value]) => [`x-${key}`, value]));
}

function deliveryLimit(policy: Policy, target: RabbitTarget): number {
  if (target.deliveryLimit !== undefined) return target.deliveryLimit;
  // In quorum-delayed-retry mode each retry is a rejected delivery: the limit is the retry count,
  // and a crash on the last attempt lets the broker dead-letter the message.
  return target.mode === 'quorum-delayed-retry'
    ? Math.max(1, policy.maxAttempts - 1)
    : RABBIT_DEFAULT_DELIVERY_LIMIT;
}

function rabbitLevels(
  policy: Policy,
  target: RabbitTarget,
  delays: number[],
  names: ReturnType<typeof rabbitNames>,
): Level[] {
  switch (target.mode) {
    case 'ttl-queues':
      // A queue TTL is one value for every message in it: no jitter is possible.
      return delays.map((delayMs, index) => ({
        level: index + 1,
        delayMs,
        waitMs: fixedRange(delayMs),
        destination: names.wait(index + 1),
      }));
    case 'quorum-delayed-retry':
      return linearDelays(delays).map((effective, index) => ({
        level: index + 1,
        delayMs: delays[index] ?? effective,
        waitMs: fixedRange(effective),
        destination: names.main,
      }));
    case 'delivery-time':
      return delays.map((delayMs, index) => ({
        level: index + 1,
        delayMs,
        waitMs: jitterRange(delayMs, policy.jitter),
        destination: names.main,
      }));
  }
}

type QueueBase = Omit<
  RabbitQueueSpec,
  'durable' | 'autoDelete' | 'arguments' | 'replication' | 'policy' | 'effective'
>;

/** One queue of the plan and the RabbitMQ policy definition that carries its mutable settings. */
export interface RabbitQueueDefinition {
  queue: QueueBase;
  /** The RabbitMQ policy's name. */
  policy: string;
  definition: Record<string, string | number>;
}

/**
 * Every queue with its policy definition, without the rest of the plan: the rule that checks the
 * definitions against the broker's validators runs for every policy `validate` reads.
 */
export function rabbitQueueDefinitions(
  policy: Policy,
  target: RabbitTarget,
  delays: number[],
  levels: Level[] = rabbitLevels(policy, target, delays, rabbitNames(policy, target)),
): RabbitQueueDefinition[] {
  const names = rabbitNames(policy, target);
  const out: RabbitQueueDefinition[] = [];
  const add = (queue: QueueBase, definition: Record<string, string | number>) =>
    out.push({ queue, policy: names.policyFor(queue.name), definition });

  const deadLettering = { 'dead-letter-strategy': target.deadLetterStrategy, overflow: target.overflow };
  const mainDefinition: Record<string, string | number> = {
    'dead-letter-exchange': names.deadLetterExchange,
    'dead-letter-routing-key': names.main,
    ...deadLettering,
    'delivery-limit': deliveryLimit(policy, target),
    ...(policy.messageTtlMs === undefined ? {} : { 'message-ttl': policy.messageTtlMs }),
  };
  if (target.mode === 'quorum-delayed-retry' && levels.length > 0) {
    // RabbitMQ 4.3 holds a rejected message for min(min × failed deliveries, max) ms. The levels
    // already follow that line, so min is the first wait and max the last. With one attempt there
    // is no wait at all, and no setting: the broker refuses a min or max of 0 (checked on 4.3.6).
    const effective = levels.map((level) => level.waitMs.max);
    mainDefinition['delayed-retry-type'] = 'failed';
    mainDefinition['delayed-retry-min'] = effective[0] as number;
    mainDefinition['delayed-retry-max'] = Math.max(...effective);
  }
  add({ name: names.main, role: 'main' }, mainDefinition);

  if (target.mode === 'ttl-queues') {
    for (const level of levels) {
      add(
        { name: level.destination, role: 'wait', level: level.level, delayMs: level.delayMs },
        {
          'message-ttl': level.delayMs,
          // The default exchange with routing key = the main queue: the message returns to the
          // queue that failed and to no other consumer of the source exchange.
          'dead-letter-exchange': '',
          'dead-letter-routing-key': names.main,
          ...deadLettering,
          ...(target.waitQueueMaxLength === 'unbounded' ? {} : { 'max-length': target.waitQueueMaxLength }),
        },
      );
    }
  }
  // The dead-letter queue is never bounded and never expires messages: it is where nothing is lost.
  // Its own policy also keeps a broad operator policy (say `.*` with drop-head) from applying.
  // From 4.0 a quorum queue has a delivery limit of 20 by default, and on 4.0.5 every message given
  // back with basic.nack(requeue) counts: reading the dead letters (which RabbitMQ can only do by
  // taking and giving back) dropped each one on the 21st read, as it has no dead-letter exchange of
  // its own. -1 turns the limit off (4.0.5, 4.3.6); 3.10.8 refuses -1 and has no default limit.
  const deadLetterDefinition: Record<string, string | number> = { overflow: 'reject-publish' };
  if (versionAtLeast(parseVersion(target.brokerVersion) ?? [], [4, 0]))
    deadLetterDefinition['delivery-limit'] = -1;
  add({ name: names.deadLetterQueue, role: 'dead-letter' }, deadLetterDefinition);
  return out;
}

export function planRabbitMq(policy: Policy, target: RabbitTarget, delays: number[]): RabbitMqPlan {
  const names = rabbitNames(policy, target);
  const { retryExchange } = names;
  const levels = rabbitLevels(policy, target, delays, names);
  const arguments_ = { 'x-queue-type': 'quorum', [QUORUM_REPLICAS_ARGUMENT]: target.quorumReplicas };
  const replication = quorumReplication(target.quorumReplicas);
  const defined = rabbitQueueDefinitions(policy, target, delays, levels);
  const policies: RabbitPolicySpec[] = defined.map(({ queue, policy: name, definition }) => ({
    name,
    pattern: `^${escapeRegex(queue.name)}$`,
    applyTo: 'queues',
    priority: target.policyPriority,
    definition,
  }));
  const queues: RabbitQueueSpec[] = defined.map(({ queue, policy: name, definition }) => ({
    ...queue,
    durable: true,
    autoDelete: false,
    arguments: arguments_,
    replication,
    policy: name,
    effective: { ...arguments_, ...asArguments(definition) },
  }));

  const usesRetryExchange = target.mode !== 'quorum-delayed-retry' && levels.length > 0;
  const waitBindings = usesRetryExchange
    ? [...new Set(levels.map((level) => level.destination))].map((queue) => ({
        source: retryExchange,
        destination: queue,
        destinationType: 'queue' as const,
        routingKey: queue,
      }))
    : [];

  const exchanges: RabbitMqPlan['exchanges'] = [
    {
      name: target.exchange,
      role: 'source',
      type: target.exchangeType,
      durable: true,
      autoDelete: false,
      declare: target.declareExchange,
    },
    {
      name: names.deadLetterExchange,
      role: 'dead-letter',
      type: 'direct',
      durable: true,
      autoDelete: false,
      declare: true,
    },
  ];
  if (usesRetryExchange)
    exchanges.push({
      name: retryExchange,
      role: 'retry',
      type: 'direct',
      durable: true,
      autoDelete: false,
      declare: true,
    });

  const writable = [names.deadLetterExchange, ...(usesRetryExchange ? [retryExchange] : [])];
  return {
    ...deliveryRules(policy, levels, target.mode === 'delivery-time', names.deadLetterQueue),
    mode: target.mode,
    brokerVersion: target.brokerVersion,
    vhost: target.vhost,
    ...(target.clusterSize === undefined ? {} : { clusterSize: target.clusterSize }),
    mainQueue: names.main,
    deadLetterExchange: names.deadLetterExchange,
    deadLetterQueue: names.deadLetterQueue,
    retryExchange: usesRetryExchange ? retryExchange : '',
    attemptHeader: ATTEMPT_HEADER,
    exchanges,
    queues,
    policies,
    bindings: [
      {
        source: target.exchange,
        destination: names.main,
        destinationType: 'queue',
        routingKey: target.routingKey,
      },
      {
        source: names.deadLetterExchange,
        destination: names.deadLetterQueue,
        destinationType: 'queue',
        routingKey: names.main,
      },
      ...waitBindings,
    ],
    consumerPermissions: {
      // The consumer declares nothing in production; Pulumi (or declareTopology in dev) does.
      configure: '^$',
      write: `^(${writable.map(escapeRegex).join('|')})$`,
      read: `^${escapeRegex(names.main)}$`,
    },
  };
}
