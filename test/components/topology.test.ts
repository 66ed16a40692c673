import * as pulumi from '@pulumi/pulumi';
import { describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../policy';
import {
  billingVariants,
  byCanonical,
  examplePlans,
  type Recording,
  type Registration,
  record,
  TYPES,
} from './harness';

/**
 * Every resource the components register, and every argument, equals the plan's specs, for every
 * example policy in policies/ (and billing.yaml in each RabbitMQ mode and Service Bus shape).
 */

const PLANS = [...examplePlans(), ...billingVariants()];

const recordings = new Map<RetryPlan, Promise<Recording>>();

/** One recording per plan: the tests of a plan read it, they never change it. */
function build(plan: RetryPlan): Promise<Recording> {
  const cached = recordings.get(plan);
  if (cached) return cached;
  const recording = import('../../components').then(({ RetryTopology }) =>
    record(() => {
      new RetryTopology('orders', {
        plan,
        rabbitmq: { consumerUser: { name: 'billing', password: pulumi.secret('not-a-real-password') } },
        kafka: { consumerPrincipal: 'User:billing' },
        serviceBus: {
          resourceGroupName: 'rg-orders',
          namespaceName: 'sb-orders',
          consumerRuleName: 'billing',
        },
      });
    }),
  );
  recordings.set(plan, recording);
  return recording;
}

function ofType(recording: Recording, type: string): Registration[] {
  return recording.registrations.filter((each) => each.type === type);
}

function one(registrations: Registration[], name: string): Registration {
  const found = registrations.filter((each) => (each.inputs as { name?: string }).name === name);
  expect(found, `exactly one resource named ${name}`).toHaveLength(1);
  return found[0] as Registration;
}

/** What the cyrilgdn provider sends for a policy definition: integer-looking strings as numbers. */
function asBrokerSees(definition: Record<string, unknown>): Record<string, string | number> {
  return Object.fromEntries(
    Object.entries(definition).map(([key, value]) => {
      const text = String(value);
      return [key, /^-?\d+$/.test(text) ? Number(text) : text];
    }),
  );
}

function component(recording: Recording, type: string): Registration {
  const found = recording.registrations.filter((each) => each.type === type);
  expect(found).toHaveLength(1);
  return found[0] as Registration;
}

describe.each(PLANS)('$file', ({ plan }) => {
  it('RabbitMQ: queues, policies, exchanges and bindings are the plan, and the broker gets `effective`', async () => {
    const rabbit = plan.targets.rabbitmq;
    if (!rabbit) return;
    const recording = await build(plan);
    const queues = ofType(recording, TYPES.queue);
    const policies = ofType(recording, TYPES.policy);
    expect(queues).toHaveLength(rabbit.queues.length);
    expect(policies).toHaveLength(rabbit.policies.length);
    for (const spec of rabbit.queues) {
      const queue = one(queues, spec.name);
      expect(queue.inputs).toEqual({
        name: spec.name,
        vhost: rabbit.vhost,
        settings: { durable: true, autoDelete: false, argumentsJson: JSON.stringify(spec.arguments) },
      });
      const policySpec = rabbit.policies.find((each) => each.name === spec.policy);
      const policy = one(policies, spec.policy);
      expect(policy.inputs).toEqual({
        name: policySpec?.name,
        vhost: rabbit.vhost,
        policy: {
          pattern: policySpec?.pattern,
          applyTo: 'queues',
          priority: policySpec?.priority,
          definition: Object.fromEntries(
            Object.entries(policySpec?.definition ?? {}).map(([key, value]) => [key, String(value)]),
          ),
        },
      });
      const definition = asBrokerSees(
        (policy.inputs.policy as { definition: Record<string, unknown> }).definition,
      );
      expect(definition).toEqual(policySpec?.definition);
      // Arguments (numbers stay numbers in argumentsJson) merged with the policy: what the plan says.
      const effective = {
        ...JSON.parse((queue.inputs.settings as { argumentsJson: string }).argumentsJson),
        ...Object.fromEntries(Object.entries(definition).map(([key, value]) => [`x-${key}`, value])),
      };
      expect(effective).toEqual(spec.effective);
      expect(queue.dependencies, 'the policy exists before its queue').toContain(policy.urn);
    }

    const exchanges = ofType(recording, TYPES.exchange);
    const declared = rabbit.exchanges.filter((exchange) => exchange.declare);
    expect(exchanges.map((each) => each.inputs.name).sort()).toEqual(
      declared.map((each) => each.name).sort(),
    );
    for (const spec of declared) {
      expect(one(exchanges, spec.name).inputs).toEqual({
        name: spec.name,
        vhost: rabbit.vhost,
        settings: { type: spec.type, durable: true, autoDelete: false },
      });
    }

    const bindings = ofType(recording, TYPES.binding);
    expect(bindings.map((each) => each.inputs).sort(byCanonical)).toEqual(
      rabbit.bindings.map((binding) => ({ ...binding, vhost: rabbit.vhost })).sort(byCanonical),
    );
    for (const binding of bindings) {
      expect(
        binding.deleteBeforeReplace,
        'an identical binding must not be created before the old is deleted',
      ).toBe(true);
      const queue = one(queues, binding.inputs.destination as string);
      expect(binding.dependencies, 'destination comes from the queue output').toContain(queue.urn);
    }
    const inflow = bindings.find(
      (each) => each.inputs.destination === rabbit.mainQueue && each.inputs.source !== rabbit.retryExchange,
    );
    const others = bindings.filter((each) => each !== inflow).map((each) => each.urn);
    expect(inflow?.dependencies, 'messages flow in only once everything else is bound').toEqual(
      expect.arrayContaining(others),
    );

    const [permissions] = ofType(recording, TYPES.permissions);
    expect(permissions?.inputs).toEqual({
      user: 'billing',
      vhost: rabbit.vhost,
      permissions: rabbit.consumerPermissions,
    });
  });

  it('RabbitMQ: what the maintainers check, read from the recorded inputs', async () => {
    const rabbit = plan.targets.rabbitmq;
    if (!rabbit) return;
    const recording = await build(plan);
    const policies = ofType(recording, TYPES.policy);
    const definitionOf = (queue: string) => {
      const spec = rabbit.queues.find((each) => each.name === queue);
      return asBrokerSees(
        (one(policies, spec?.policy ?? '').inputs.policy as { definition: Record<string, unknown> })
          .definition,
      );
    };
    for (const queue of ofType(recording, TYPES.queue)) {
      const settings = queue.inputs.settings as { durable: boolean; argumentsJson: string };
      expect(settings.durable).toBe(true);
      expect(JSON.parse(settings.argumentsJson)).toEqual({
        'x-queue-type': 'quorum',
        'x-quorum-initial-group-size': expect.any(Number),
      });
      expect(queue.ignoreChanges, 'a changed replica count never replaces a queue').toEqual([
        'settings.argumentsJson',
      ]);
      expect(queue.inputs, 'never the string-valued `arguments` map').not.toHaveProperty(
        'settings.arguments',
      );
      const definition = definitionOf(queue.inputs.name as string);
      if (definition['dead-letter-strategy'] === 'at-least-once')
        expect(definition.overflow).toBe('reject-publish');
    }
    const main = definitionOf(rabbit.mainQueue);
    expect(main['dead-letter-exchange']).toBe(rabbit.deadLetterExchange);
    expect(main['delivery-limit']).toEqual(expect.any(Number));
    for (const wait of rabbit.queues.filter((each) => each.role === 'wait')) {
      const definition = definitionOf(wait.name);
      expect(definition['dead-letter-exchange'], 'back through the default exchange').toBe('');
      expect(definition['dead-letter-routing-key'], 'to the main queue only').toBe(rabbit.mainQueue);
      expect(definition['message-ttl']).toBe(wait.delayMs);
      expect(typeof definition['message-ttl']).toBe('number');
    }
  });

  it('Kafka: topics and ACLs are the plan', async () => {
    const kafka = plan.targets.kafka;
    if (!kafka) return;
    const recording = await build(plan);
    const topics = ofType(recording, TYPES.topic);
    const declared = kafka.topics.filter((topic) => topic.declare);
    expect(topics.map((each) => each.inputs).sort(byCanonical)).toEqual(
      declared
        .map(({ name, partitions, replicationFactor, config }) => ({
          name,
          partitions,
          replicationFactor,
          config,
        }))
        .sort(byCanonical),
    );
    const sourceDeclared = declared.some((topic) => topic.role === 'source');
    expect(topics.some((each) => each.inputs.name === kafka.sourceTopic)).toBe(sourceDeclared);
    // Exactly the ACLs the plan lists, one per operation, each with the plan's pattern, for this
    // principal on any host: the plan is what reviewers read, so nothing it lists may be left
    // out and nothing it does not list may be made.
    const acls = ofType(recording, TYPES.acl);
    for (const { inputs } of acls)
      expect(inputs).toMatchObject({
        aclPrincipal: 'User:billing',
        aclHost: '*',
        aclPermissionType: 'Allow',
      });
    const provisioned = acls
      .map(({ inputs }) =>
        [
          inputs.resourcePatternTypeFilter,
          inputs.aclResourceType,
          inputs.aclResourceName,
          inputs.aclOperation,
        ]
          .map((part) => String(part).toLowerCase())
          .join(' '),
      )
      .sort();
    const planned = kafka.consumerAcls
      .flatMap((acl) =>
        acl.operations.map((operation) =>
          [acl.pattern, acl.resource, acl.name, operation].map((part) => part.toLowerCase()).join(' '),
        ),
      )
      .sort();
    expect(provisioned).toEqual(planned);
  });

  it('Service Bus: entities carry the plan properties; the producer topic is not created', async () => {
    const serviceBus = plan.targets.serviceBus;
    if (!serviceBus) return;
    const recording = await build(plan);
    const where = { resourceGroupName: 'rg-orders', namespaceName: 'sb-orders' };
    const queues = ofType(recording, TYPES.sbQueue);
    const subscriptions = ofType(recording, TYPES.sbSubscription);
    const expectedQueues = serviceBus.entities
      .filter((entity) => entity.kind === 'queue')
      .map((entity) => ({ ...where, queueName: entity.name, ...entity.properties }));
    expect(queues.map((each) => each.inputs).sort(byCanonical)).toEqual(expectedQueues.sort(byCanonical));
    const expectedSubscriptions = serviceBus.entities
      .filter((entity) => entity.kind === 'subscription')
      .map((entity) => {
        const { requiresDuplicateDetection: _, ...properties } = entity.properties;
        return { ...where, topicName: entity.topic, subscriptionName: entity.name, ...properties };
      });
    expect(subscriptions.map((each) => each.inputs)).toEqual(expectedSubscriptions);
    expect(recording.registrations.some((each) => each.type.includes('servicebus:Topic'))).toBe(false);
    const rules = ofType(recording, 'azure-native:servicebus:QueueAuthorizationRule');
    expect(rules.map((each) => each.inputs).sort(byCanonical)).toEqual(
      expectedQueues
        .map((queue) => ({
          ...where,
          queueName: queue.queueName,
          authorizationRuleName: 'billing',
          rights: ['Listen', 'Send'],
        }))
        .sort(byCanonical),
    );
  });

  it('outputs: planJson is the plan, and every entity name the runtime needs', async () => {
    const recording = await build(plan);
    const outputs = (type: string) => recording.outputs.get(component(recording, type).urn) ?? {};
    const top = outputs('retry-topology:index:RetryTopology');
    expect(JSON.parse(top.planJson as string)).toEqual(plan);
    const { rabbitmq, kafka, serviceBus } = plan.targets;
    if (rabbitmq) {
      const rabbit = outputs('retry-topology:index:RabbitMqRetryTopology');
      expect(rabbit).toEqual({
        planJson: top.planJson,
        vhost: rabbitmq.vhost,
        sourceExchange: rabbitmq.exchanges.find((each) => each.role === 'source')?.name,
        mainQueue: rabbitmq.mainQueue,
        deadLetterExchange: rabbitmq.deadLetterExchange,
        deadLetterQueue: rabbitmq.deadLetterQueue,
        retryExchange: rabbitmq.retryExchange,
        waitQueues: rabbitmq.queues.filter((each) => each.role === 'wait').map((each) => each.name),
        consumerUser: 'billing',
      });
    }
    if (kafka) {
      expect(outputs('retry-topology:index:KafkaRetryTopology')).toEqual({
        planJson: top.planJson,
        sourceTopic: kafka.sourceTopic,
        retryTopics: kafka.levels.map((level) => level.destination),
        deadLetterTopic: kafka.deadLetterTopic,
        consumerGroup: kafka.consumerGroup,
        retryConsumerGroup: kafka.retryConsumerGroup,
      });
    }
    if (serviceBus) {
      const { entity } = serviceBus;
      const retry = serviceBus.entities.find((each) => each.role === 'retry');
      expect(outputs('retry-topology:index:ServiceBusRetryTopology')).toEqual({
        planJson: top.planJson,
        namespaceName: 'sb-orders',
        entityPath:
          entity.kind === 'queue' ? entity.queue : `${entity.topic}/subscriptions/${entity.subscription}`,
        topic: entity.kind === 'queue' ? '' : entity.topic,
        retryQueue: retry?.name ?? '',
        scheduleTo: serviceBus.scheduleTo,
        consumerRules: serviceBus.entities.filter((each) => each.kind === 'queue').map(() => 'billing'),
      });
    }
  });

  it('structure: type tokens, every child parented, every component registers outputs', async () => {
    const recording = await build(plan);
    const components = recording.registrations.filter((each) => !each.custom);
    const top = component(recording, 'retry-topology:index:RetryTopology');
    const targets = [
      ...(plan.targets.rabbitmq ? ['retry-topology:index:RabbitMqRetryTopology'] : []),
      ...(plan.targets.kafka ? ['retry-topology:index:KafkaRetryTopology'] : []),
      ...(plan.targets.serviceBus ? ['retry-topology:index:ServiceBusRetryTopology'] : []),
    ];
    expect(components.map((each) => each.type).sort()).toEqual(
      [
        'retry-topology:index:RetryTopology',
        ...targets,
        ...targets.map(() => 'retry-topology:index:DeleteGuard'),
      ].sort(),
    );
    const targetUrns = new Set(
      components.filter((each) => targets.includes(each.type)).map((each) => each.urn),
    );
    for (const each of components) {
      expect(recording.outputs.has(each.urn), `${each.type} calls registerOutputs`).toBe(true);
      if (each.type === 'retry-topology:index:DeleteGuard') {
        expect(targetUrns.has(each.parent), `${each.name} is a target's child`).toBe(true);
      } else if (each !== top) {
        expect(each.parent).toBe(top.urn);
      }
    }
    const componentUrns = new Set(components.map((each) => each.urn));
    for (const child of recording.registrations.filter((each) => each.custom)) {
      expect(componentUrns.has(child.parent), `${child.name} has a component parent`).toBe(true);
      expect(child.name.startsWith('orders-'), `${child.name} is named after its component`).toBe(true);
    }
  });
});
