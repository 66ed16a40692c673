import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  kafkaAclSpecs,
  kafkaTopicSpecs,
  LIFECYCLE_DEFAULTS,
  lifecycleOptions,
  planJson,
  rabbitMqSpecs,
  resolveLifecycle,
  serviceBusEntitySpecs,
  serviceBusRuleSpecs,
  TopologyError,
} from '../../components';
import { validateKafkaPrincipal } from '../../components/kafka/specs';
import { requireTarget } from '../../components/plan';
import { validateRabbitMqArgs } from '../../components/rabbitmq/args';
import { policyDefinition } from '../../components/rabbitmq/specs';
import { selectTargets } from '../../components/retry-topology';
import { validateServiceBusArgs } from '../../components/servicebus/args';
import { validateRuleName } from '../../components/servicebus/specs';
import type { RetryPlan } from '../../policy';
import { billingDocument, planOf, withValues } from './harness';

/** The pure half: spec builders, validators and option builders, without Pulumi. */

const billing = planOf(billingDocument());

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof TopologyError) return error.code;
    throw error;
  }
  return undefined;
}

describe('logical names come from role and level only', () => {
  it('billing.yaml: the RabbitMQ, Kafka and Service Bus children', () => {
    const rabbit = rabbitMqSpecs(requireTarget(billing, 'rabbitmq'));
    expect(rabbit.queues.map((each) => each.key)).toEqual([
      'main-queue',
      'wait-1',
      'wait-2',
      'wait-3',
      'dlq',
    ]);
    expect(rabbit.policies.map((each) => each.key)).toEqual([
      'main-queue-policy',
      'wait-1-policy',
      'wait-2-policy',
      'wait-3-policy',
      'dlq-policy',
    ]);
    expect(rabbit.exchanges.map((each) => each.key)).toEqual(['source-exchange', 'dlx', 'retry-exchange']);
    expect(rabbit.bindings.map((each) => each.key)).toEqual([
      'source-exchange-to-main-queue',
      'dlx-to-dlq',
      'retry-exchange-to-wait-1',
      'retry-exchange-to-wait-2',
      'retry-exchange-to-wait-3',
    ]);
    expect(kafkaTopicSpecs(requireTarget(billing, 'kafka')).map((each) => each.key)).toEqual([
      'source-topic',
      'dlt',
      'retry-topic-1',
      'retry-topic-2',
      'retry-topic-3',
    ]);
    expect(serviceBusEntitySpecs(requireTarget(billing, 'serviceBus')).map((each) => each.key)).toEqual([
      'subscription',
      'retry-queue',
    ]);
  });

  it('any delays and any policy name give the same keys for the same attempt count', () => {
    const keysOf = (plan: RetryPlan) => {
      const rabbit = rabbitMqSpecs(requireTarget(plan, 'rabbitmq'));
      return [
        ...[...rabbit.exchanges, ...rabbit.policies, ...rabbit.queues, ...rabbit.bindings].map(
          (each) => each.key,
        ),
        ...kafkaTopicSpecs(requireTarget(plan, 'kafka')).map((each) => each.key),
        ...kafkaAclSpecs(requireTarget(plan, 'kafka'), 'User:x').map((each) => each.key),
      ];
    };
    const reference = new Map<number, string[]>();
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 8 })
          .chain((attempts) =>
            fc.tuple(
              fc.constant(attempts),
              fc.array(fc.integer({ min: 1, max: 60 }), { minLength: attempts - 1, maxLength: attempts - 1 }),
              fc.constantFrom('billing.order-placed', 'shipping.label', 'a'),
            ),
          ),
        ([attempts, delays, name]) => {
          const plan = planOf(
            withValues(billingDocument(), [
              [['metadata', 'name'], name],
              [['spec', 'maxAttempts'], attempts],
              [['spec', 'backoff'], { type: 'list', delays: delays.map((seconds) => `${seconds}s`) }],
            ]),
          );
          const keys = keysOf(plan);
          if (!reference.has(attempts)) reference.set(attempts, keys);
          expect(keys).toEqual(reference.get(attempts));
          expect(keys.join(' ')).not.toMatch(/\d{3,}|billing|shipping/);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('RabbitMQ specs', () => {
  it('policy definitions become strings; numbers keep their digits', () => {
    expect(
      policyDefinition({ 'message-ttl': 1000, 'dead-letter-exchange': '', overflow: 'reject-publish' }),
    ).toEqual({
      'message-ttl': '1000',
      'dead-letter-exchange': '',
      overflow: 'reject-publish',
    });
  });

  it('queue arguments travel as JSON, so numbers stay numbers', () => {
    const plan = requireTarget(billing, 'rabbitmq');
    const withNumber = {
      ...plan,
      queues: plan.queues.map((queue) => ({ ...queue, arguments: { ...queue.arguments, 'x-n': 5 } })),
    };
    for (const queue of rabbitMqSpecs(withNumber).queues) {
      expect(JSON.parse(queue.args.settings.argumentsJson)).toEqual({
        'x-queue-type': 'quorum',
        'x-quorum-initial-group-size': 1,
        'x-n': 5,
      });
    }
  });

  it('lifecycles: the main and dead-letter paths last; wait queues and the retry exchange are retry levels', () => {
    const specs = rabbitMqSpecs(requireTarget(billing, 'rabbitmq'));
    const lifecycle = Object.fromEntries(
      [...specs.exchanges, ...specs.policies, ...specs.queues, ...specs.bindings].map((each) => [
        each.key,
        each.lifecycle,
      ]),
    );
    expect(lifecycle).toMatchObject({
      'main-queue': 'lasting',
      'main-queue-policy': 'lasting',
      dlq: 'lasting',
      'dlq-policy': 'lasting',
      'source-exchange': 'lasting',
      'wait-1': 'retry-level',
      'wait-1-policy': 'retry-level',
      'retry-exchange-to-wait-1': 'retry-level',
      dlx: 'lasting',
      'retry-exchange': 'retry-level',
      'dlx-to-dlq': 'lasting',
      'source-exchange-to-main-queue': 'lasting',
    });
    // Created in an order where each child comes after what it points at.
    expect(specs.order).toEqual([
      'source-exchange',
      'dlx',
      'retry-exchange',
      'dlq-policy',
      'dlq',
      'dlx-to-dlq',
      'main-queue-policy',
      'main-queue',
      'wait-1-policy',
      'wait-2-policy',
      'wait-3-policy',
      'wait-1',
      'wait-2',
      'wait-3',
      'retry-exchange-to-wait-1',
      'retry-exchange-to-wait-2',
      'retry-exchange-to-wait-3',
      'source-exchange-to-main-queue',
    ]);
  });

  it('a producer-owned source exchange is bound to by name, not declared', () => {
    const plan = planOf(
      withValues(billingDocument(), [[['spec', 'targets', 'rabbitmq', 'declareExchange'], false]]),
    );
    const specs = rabbitMqSpecs(requireTarget(plan, 'rabbitmq'));
    expect(specs.exchanges.map((each) => each.key)).toEqual(['dlx', 'retry-exchange']);
    const inflow = specs.bindings.find((each) => each.opensInflow);
    expect(inflow?.exchangeKey).toBeUndefined();
    expect(inflow?.args.source).toBe('bookstore.ordering');
  });

  it('a plan that contradicts itself is refused', () => {
    const plan = requireTarget(billing, 'rabbitmq');
    expect(codeOf(() => rabbitMqSpecs({ ...plan, policies: plan.policies.slice(1) }))).toBe(
      'inconsistent-plan',
    );
    const stray = {
      ...plan,
      bindings: [...plan.bindings, { ...plan.bindings[0], destination: 'nowhere' } as never],
    };
    expect(codeOf(() => rabbitMqSpecs(stray))).toBe('inconsistent-plan');
    expect(codeOf(() => rabbitMqSpecs({ ...plan, queues: [...plan.queues, plan.queues[0] as never] }))).toBe(
      'inconsistent-plan',
    );
  });

  it('validateRabbitMqArgs refuses an empty user name', () => {
    expect(codeOf(() => validateRabbitMqArgs({ plan: billing, consumerUser: { name: ' ' } }))).toBe(
      'invalid-option',
    );
    expect(
      codeOf(() => validateRabbitMqArgs({ plan: billing, consumerUser: { name: 'billing' } })),
    ).toBeUndefined();
  });
});

describe('Kafka specs', () => {
  it('ACLs: one per operation the plan lists, none else', () => {
    const kafka = requireTarget(billing, 'kafka');
    const acls = kafkaAclSpecs(kafka, 'User:billing');
    // Six for any number of levels: the retry topics share one prefixed pair. Describe comes with
    // Read and Write in Kafka, so neither the plan nor the ACLs name it.
    expect(acls.map((each) => [each.key, each.lifecycle])).toEqual([
      ['source-topic-acl-read', 'plain'],
      ['retry-topics-acl-read', 'retry-level'],
      ['retry-topics-acl-write', 'retry-level'],
      ['dlt-acl-write', 'plain'],
      ['group-acl-read', 'plain'],
      ['retry-group-acl-read', 'plain'],
    ]);
    expect(acls.map((each) => each.args.aclOperation)).toEqual(
      kafka.consumerAcls.flatMap((acl) => acl.operations),
    );
  });

  it('the retry topics get one Prefixed pattern, which covers every level and no other topic', () => {
    const kafka = requireTarget(billing, 'kafka');
    const acls = kafkaAclSpecs(kafka, 'User:billing');
    const prefixed = acls.filter((each) => each.args.resourcePatternTypeFilter === 'Prefixed');
    expect(prefixed.map((each) => [each.args.aclResourceName, each.args.aclOperation])).toEqual([
      ['billing.order-placed.retry.', 'Read'],
      ['billing.order-placed.retry.', 'Write'],
    ]);
    const names = [...kafka.topics.map((topic) => topic.name), kafka.sourceTopic];
    expect(names.filter((name) => name.startsWith('billing.order-placed.retry.'))).toEqual(
      kafka.levels.map((level) => level.destination),
    );
    // A prefix that would also cover the dead-letter topic, or miss a level, is not the plan's.
    const broader = (name: string) => ({
      ...kafka,
      consumerAcls: [
        { resource: 'topic' as const, name, pattern: 'prefixed' as const, operations: ['Read' as const] },
      ],
    });
    expect(codeOf(() => kafkaAclSpecs(broader('billing.order-placed.'), 'User:b'))).toBe('inconsistent-plan');
    expect(codeOf(() => kafkaAclSpecs(broader('billing.order-placed.retry.1'), 'User:b'))).toBe(
      'inconsistent-plan',
    );
    expect(kafkaAclSpecs(broader('billing.order-placed.retry.'), 'User:b')).toHaveLength(1);
  });

  it('ACLs name the principal, one per operation, Literal patterns for a named topic or group', () => {
    const acls = kafkaAclSpecs(requireTarget(billing, 'kafka'), 'User:billing', '10.0.0.1');
    expect(acls.find((each) => each.key === 'retry-group-acl-read')?.args).toEqual({
      aclResourceName: 'billing.retry',
      aclResourceType: 'Group',
      aclPrincipal: 'User:billing',
      aclHost: '10.0.0.1',
      aclOperation: 'Read',
      aclPermissionType: 'Allow',
      resourcePatternTypeFilter: 'Literal',
    });
  });

  it('a principal must be <type>:<name>', () => {
    expect(codeOf(() => validateKafkaPrincipal('billing'))).toBe('invalid-option');
    expect(codeOf(() => validateKafkaPrincipal('User:billing'))).toBeUndefined();
  });

  it('a topic the producer owns is not declared; retry topics are retry levels', () => {
    const plan = planOf(
      withValues(billingDocument(), [[['spec', 'targets', 'kafka', 'declareTopic'], false]]),
    );
    const topics = kafkaTopicSpecs(requireTarget(plan, 'kafka'));
    // The lasting topic first: the retry topics are created (and changed) after it.
    expect(topics.map((each) => [each.key, each.lifecycle, each.after])).toEqual([
      ['dlt', 'lasting', []],
      ['retry-topic-1', 'retry-level', ['dlt']],
      ['retry-topic-2', 'retry-level', ['dlt']],
      ['retry-topic-3', 'retry-level', ['dlt']],
    ]);
    expect(
      kafkaAclSpecs(requireTarget(plan, 'kafka'), 'User:b').some((each) =>
        each.key.startsWith('source-topic-'),
      ),
    ).toBe(true);
  });
});

describe('Service Bus specs', () => {
  it('a subscription never gets duplicate-detection properties', () => {
    const plan = requireTarget(billing, 'serviceBus');
    const [subscription] = serviceBusEntitySpecs(plan);
    expect(subscription?.args).not.toHaveProperty('requiresDuplicateDetection');
    const bad = {
      ...plan,
      entities: plan.entities.map((entity) => ({
        ...entity,
        properties: { ...entity.properties, requiresDuplicateDetection: true },
      })),
    };
    expect(codeOf(() => serviceBusEntitySpecs(bad))).toBe('inconsistent-plan');
  });

  it('rules are on the consumer’s own queues only, Listen + Send', () => {
    const rules = serviceBusRuleSpecs(serviceBusEntitySpecs(requireTarget(billing, 'serviceBus')), 'billing');
    expect(rules).toEqual([
      {
        key: 'retry-queue-consumer-rule',
        queueKey: 'retry-queue',
        lifecycle: 'plain',
        args: { authorizationRuleName: 'billing', rights: ['Listen', 'Send'] },
      },
    ]);
  });

  it('validators name the argument', () => {
    expect(codeOf(() => validateRuleName('x'.repeat(51)))).toBe('invalid-option');
    expect(codeOf(() => validateRuleName('billing consumer'))).toBe('invalid-option');
    expect(codeOf(() => validateRuleName('billing-consumer'))).toBeUndefined();
    expect(() =>
      validateServiceBusArgs({ plan: billing, resourceGroupName: '', namespaceName: 'ns' }),
    ).toThrow(/args\.resourceGroupName/);
  });
});

describe('plan and target selection', () => {
  it('planJson is the CLI json format', () => {
    expect(planJson(billing)).toBe(JSON.stringify(billing, null, 2));
    expect(JSON.parse(planJson(billing))).toEqual(billing);
  });

  it('requireTarget refuses a missing target and another plan version', () => {
    const noKafka = { ...billing, targets: { ...billing.targets, kafka: undefined } };
    expect(codeOf(() => requireTarget(noKafka, 'kafka'))).toBe('target-not-in-plan');
    expect(codeOf(() => requireTarget({ ...billing, planVersion: 2 as never }, 'kafka'))).toBe(
      'plan-version-mismatch',
    );
  });

  it('selectTargets: every planned target by default, in a fixed order; Service Bus needs its options', () => {
    const where = { resourceGroupName: 'rg', namespaceName: 'ns' };
    expect(selectTargets({ plan: billing, serviceBus: where })).toEqual(['rabbitmq', 'kafka', 'serviceBus']);
    expect(selectTargets({ plan: billing, targets: ['kafka', 'rabbitmq'] })).toEqual(['rabbitmq', 'kafka']);
    expect(codeOf(() => selectTargets({ plan: billing }))).toBe('missing-option');
    const rabbitOnly = { ...billing, targets: { rabbitmq: billing.targets.rabbitmq } };
    expect(codeOf(() => selectTargets({ plan: rabbitOnly, targets: ['kafka'] }))).toBe('target-not-in-plan');
    // Options for a target the plan lacks are ignored: one options object serves many policies.
    expect(selectTargets({ plan: rabbitOnly, serviceBus: where, kafka: {} })).toEqual(['rabbitmq']);
  });
});

describe('lifecycle options', () => {
  const defaults = resolveLifecycle();

  it('defaults are protect lasting children and retain retry levels', () => {
    expect(defaults).toEqual(LIFECYCLE_DEFAULTS);
    expect(lifecycleOptions('lasting', defaults, {})).toEqual({ protect: true });
    expect(lifecycleOptions('retry-level', defaults, {})).toEqual({ protect: false, retainOnDelete: true });
    expect(lifecycleOptions('plain', defaults, {})).toEqual({ protect: false });
  });

  it('opt-outs and a component-level protect or retainOnDelete', () => {
    const off = resolveLifecycle({ protectMessages: false, retainRetryLevels: false });
    expect(lifecycleOptions('lasting', off, {})).toEqual({ protect: false });
    expect(lifecycleOptions('retry-level', off, {})).toEqual({ protect: false });
    // protect: true on the component wins; protect: false is not the opt-out.
    expect(lifecycleOptions('lasting', off, { protect: true })).toEqual({ protect: true });
    expect(lifecycleOptions('lasting', defaults, { protect: false })).toEqual({ protect: true });
    // Always explicit: the target component itself is protected, and a retry level that inherited
    // that could never be removed.
    expect(lifecycleOptions('plain', defaults, { protect: true })).toEqual({ protect: true });
    expect(lifecycleOptions('retry-level', defaults, { protect: false })).toEqual({
      protect: false,
      retainOnDelete: true,
    });
    for (const lifecycle of ['lasting', 'retry-level', 'plain'] as const) {
      expect(lifecycleOptions(lifecycle, off, { retainOnDelete: true }).retainOnDelete).toBe(true);
    }
  });
});
