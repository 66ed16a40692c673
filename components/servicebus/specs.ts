import type { ServiceBusEntityProperties, ServiceBusPlan } from '../../policy';
import { assertUniqueKeys, identityOf } from '../children';
import { TopologyError } from '../errors';
import type { Lifecycle } from '../options';

/**
 * Service Bus plan → the exact arguments of every entity, straight from the plan's `properties`
 * (their keys are azure-native's argument names). Namespace and resource group are deployment
 * concerns the component adds. The producer's topic is referenced by name, never created.
 */

export interface ServiceBusQueueChild {
  key: 'main-queue' | 'retry-queue';
  kind: 'queue';
  lifecycle: Lifecycle;
  /** The retry queue comes after the main entity, so a refused change there touches nothing else. */
  after: string[];
  args: { queueName: string } & ServiceBusEntityProperties;
}

export interface ServiceBusSubscriptionChild {
  key: 'subscription';
  kind: 'subscription';
  lifecycle: Lifecycle;
  after: string[];
  args: { topicName: string; subscriptionName: string } & Omit<
    ServiceBusEntityProperties,
    'requiresDuplicateDetection' | 'duplicateDetectionHistoryTimeWindow'
  >;
}

export type ServiceBusEntityChild = ServiceBusQueueChild | ServiceBusSubscriptionChild;

export interface ServiceBusRuleChild {
  key: string;
  /** The queue child the rule belongs to; the component takes `queueName` from its output. */
  queueKey: ServiceBusQueueChild['key'];
  lifecycle: Lifecycle;
  args: { authorizationRuleName: string; rights: Array<'Listen' | 'Send'> };
}

export function serviceBusEntitySpecs(plan: ServiceBusPlan): ServiceBusEntityChild[] {
  const mainKey = plan.entity.kind === 'queue' ? 'main-queue' : 'subscription';
  const children = plan.entities.map((entity): ServiceBusEntityChild => {
    // Every entity holds messages: the subscription and main queue hold new ones, the retry queue
    // holds the scheduled copies.
    const lifecycle: Lifecycle = 'lasting';
    if (entity.kind === 'queue') {
      return {
        key: entity.role === 'main' ? 'main-queue' : 'retry-queue',
        kind: 'queue',
        lifecycle,
        after: entity.role === 'main' ? [] : [mainKey],
        args: { queueName: entity.name, ...entity.properties },
      };
    }
    const { requiresDuplicateDetection, duplicateDetectionHistoryTimeWindow, ...properties } =
      entity.properties;
    if (entity.role !== 'main' || !entity.topic) {
      throw new TopologyError(
        'inconsistent-plan',
        `subscription "${entity.name}" must be the main entity of a topic`,
      );
    }
    if (requiresDuplicateDetection || duplicateDetectionHistoryTimeWindow !== undefined) {
      throw new TopologyError(
        'inconsistent-plan',
        `subscription "${entity.name}" asks for duplicate detection, which only queues and topics have`,
      );
    }
    return {
      key: 'subscription',
      kind: 'subscription',
      lifecycle,
      after: [],
      args: { topicName: entity.topic, subscriptionName: entity.name, ...properties },
    };
  });
  assertUniqueKeys(children);
  // The main entity first: the component creates them in this order.
  return [...children].sort((a, b) => a.after.length - b.after.length);
}

/**
 * What would replace an entity or cannot change after creation (Azure refuses the update), and
 * which entities exist: the names, the topic of a subscription, duplicate detection (the plan sets
 * no sessions or partitioning). Namespace and resource group stay out: they may be outputs unknown in a preview,
 * which the engine would count as a change.
 */
export function serviceBusIdentity(entities: readonly ServiceBusEntityChild[]): Record<string, unknown> {
  return identityOf(
    entities.map((entity) => ({
      key: entity.key,
      replacedBy:
        entity.kind === 'queue'
          ? {
              queueName: entity.args.queueName,
              requiresDuplicateDetection: entity.args.requiresDuplicateDetection,
            }
          : {
              topicName: entity.args.topicName,
              subscriptionName: entity.args.subscriptionName,
            },
    })),
  );
}

/** Azure's rule for authorization rule names: 1–50 letters, digits, ".", "-" and "_". */
export function validateRuleName(ruleName: string): void {
  if (!/^[A-Za-z0-9._-]{1,50}$/.test(ruleName)) {
    throw new TopologyError(
      'invalid-option',
      `args.consumerRuleName is "${ruleName}": use 1–50 letters, digits, ".", "-" or "_"`,
    );
  }
}

/**
 * Listen + Send on the consumer's own queues: it receives from them and schedules retry copies
 * on them. A subscription gets no rule: SAS rules exist only on a namespace, queue or topic, and
 * Listen on the producer's topic would open every other subscription too (see docs).
 */
export function serviceBusRuleSpecs(
  entities: readonly ServiceBusEntityChild[],
  ruleName: string,
): ServiceBusRuleChild[] {
  validateRuleName(ruleName);
  return entities
    .filter((entity): entity is ServiceBusQueueChild => entity.kind === 'queue')
    .map((queue) => ({
      key: `${queue.key}-consumer-rule`,
      queueKey: queue.key,
      lifecycle: 'plain' as const,
      args: { authorizationRuleName: ruleName, rights: ['Listen', 'Send'] },
    }));
}
