import * as pulumi from '@pulumi/pulumi';
import { describe, expect, it } from 'vitest';
import type { RetryTopologyArgs } from '../../components';
import type { RetryPlan } from '../../policy';
import {
  billingDocument,
  planOf,
  type Recording,
  type Registration,
  record,
  TYPES,
  withValues,
} from './harness';

/**
 * What makes every Pulumi path safe with the defaults (docs/components.md, "Protection"): each
 * target component is protected and carries the target's identity as its replacement trigger;
 * a protected delete guard depends on everything else of its target; and every child that
 * points at another is registered after it. Under mocks this checks what the program asks of
 * the engine; the e2e checks what the engine then does.
 */

const GUARD = 'retry-topology:index:DeleteGuard';
const TARGET_TYPES = {
  rabbitmq: 'retry-topology:index:RabbitMqRetryTopology',
  kafka: 'retry-topology:index:KafkaRetryTopology',
  serviceBus: 'retry-topology:index:ServiceBusRetryTopology',
} as const;
const where = { resourceGroupName: 'rg', namespaceName: 'ns' };

async function build(plan: RetryPlan, args: Partial<RetryTopologyArgs> = {}): Promise<Recording> {
  const { RetryTopology } = await import('../../components');
  return record(() => {
    new RetryTopology('billing', {
      plan,
      rabbitmq: { consumerUser: { name: 'billing', password: pulumi.secret('x') } },
      kafka: { consumerPrincipal: 'User:billing' },
      serviceBus: { ...where, consumerRuleName: 'billing' },
      ...args,
    });
  });
}

function named(recording: Recording, name: string): Registration {
  const found = recording.registrations.find((each) => each.name === `billing-${name}` || each.name === name);
  if (!found) throw new Error(`nothing registered as ${name}`);
  return found;
}

function childrenOf(recording: Recording, parent: Registration): Registration[] {
  return recording.registrations.filter((each) => each.parent === parent.urn);
}

const billing = planOf(billingDocument());

describe('with the defaults', () => {
  it('each target component is protected, with the target identity as its replacement trigger', async () => {
    const recording = await build(billing);
    for (const type of Object.values(TARGET_TYPES)) {
      const target = recording.registrations.find((each) => each.type === type);
      expect(target?.protect, type).toBe(true);
      expect(target?.replacementTrigger, type).toMatchObject({
        lasting: expect.any(Array),
        inputs: expect.any(Object),
      });
    }
    const rabbit = recording.registrations.find((each) => each.type === TARGET_TYPES.rabbitmq);
    expect((rabbit?.replacementTrigger as { lasting?: string[] } | undefined)?.lasting).toEqual([
      'dlq',
      'dlq-policy',
      'dlx',
      'dlx-to-dlq',
      'main-queue',
      'main-queue-policy',
      'source-exchange',
      'source-exchange-to-main-queue',
    ]);
  });

  it('a protected delete guard per target depends on every other child of that target', async () => {
    const recording = await build(billing);
    for (const type of Object.values(TARGET_TYPES)) {
      const target = recording.registrations.find((each) => each.type === type) as Registration;
      const children = childrenOf(recording, target);
      const guard = children.filter((each) => each.type === GUARD);
      expect(guard, type).toHaveLength(1);
      expect(guard[0]?.protect).toBe(true);
      const others = children.filter((each) => each.type !== GUARD).map((each) => each.urn);
      expect(others.length).toBeGreaterThan(1);
      expect([...(guard[0]?.dependencies ?? [])].sort()).toEqual(others.sort());
    }
  });

  it('RabbitMQ: every child is registered after what it routes to, its policy and its exchange', async () => {
    const recording = await build(billing);
    const urn = (name: string) => named(recording, name).urn;
    const dependsOn = (name: string) => named(recording, name).dependencies;
    // A policy that dead-letters to a queue waits for that queue, and names it from its output.
    for (const level of [1, 2, 3]) {
      expect(dependsOn(`wait-${level}-policy`)).toContain(urn('main-queue'));
      expect(dependsOn(`wait-${level}`)).toContain(urn(`wait-${level}-policy`));
      expect(dependsOn(`retry-exchange-to-wait-${level}`)).toEqual(
        expect.arrayContaining([urn('retry-exchange'), urn(`wait-${level}`)]),
      );
      const definition = (named(recording, `wait-${level}-policy`).inputs.policy as { definition: object })
        .definition;
      expect(definition).toMatchObject({ 'dead-letter-routing-key': 'billing.order-placed' });
    }
    // The main queue dead-letters through the DLX: it exists only once the DLX is bound to the DLQ.
    expect(dependsOn('main-queue-policy')).toEqual(expect.arrayContaining([urn('dlx'), urn('dlx-to-dlq')]));
    expect(dependsOn('main-queue')).toContain(urn('main-queue-policy'));
    expect(dependsOn('dlx-to-dlq')).toEqual(expect.arrayContaining([urn('dlx'), urn('dlq')]));
    expect(dependsOn('dlq')).toContain(urn('dlq-policy'));
    // Messages flow in last.
    expect(dependsOn('source-exchange-to-main-queue')).toEqual(
      expect.arrayContaining([
        urn('source-exchange'),
        urn('main-queue'),
        urn('dlx-to-dlq'),
        ...[1, 2, 3].map((level) => urn(`retry-exchange-to-wait-${level}`)),
      ]),
    );
    expect(dependsOn('consumer-permissions')).toContain(urn('consumer-user'));
  });

  it('Kafka: retry topics after the dead-letter and source topics, ACLs after every topic', async () => {
    const recording = await build(billing);
    const urn = (name: string) => named(recording, name).urn;
    for (const level of [1, 2, 3]) {
      expect(named(recording, `retry-topic-${level}`).dependencies).toEqual(
        expect.arrayContaining([urn('dlt'), urn('source-topic')]),
      );
    }
    expect(named(recording, 'dlt').dependencies).toEqual([]);
    const topics = recording.registrations
      .filter((each) => each.type === TYPES.topic)
      .map((each) => each.urn);
    for (const acl of recording.registrations.filter((each) => each.type === TYPES.acl)) {
      expect(acl.dependencies).toEqual(expect.arrayContaining(topics));
    }
  });

  it('Service Bus: the retry queue after the subscription (typed against azure-native, run under mocks only)', async () => {
    const recording = await build(billing);
    expect(named(recording, 'retry-queue').dependencies).toContain(named(recording, 'subscription').urn);
  });
});

it('protectMessages: false: no component protected, no trigger, the guards unprotected but there', async () => {
  const recording = await build(billing, { protectMessages: false });
  for (const type of [...Object.values(TARGET_TYPES), GUARD]) {
    const found = recording.registrations.filter((each) => each.type === type);
    expect(found.length, type).toBeGreaterThan(0);
    for (const each of found)
      expect([type, each.protect, each.replacementTrigger]).toEqual([type, false, undefined]);
  }
});

describe('the identity (replacement trigger) changes exactly when a lasting child would be replaced', () => {
  const RABBIT = ['spec', 'targets', 'rabbitmq'];
  const KAFKA = ['spec', 'targets', 'kafka'];
  const SB = ['spec', 'targets', 'serviceBus'];
  const edits: Array<
    [string, ReadonlyArray<[ReadonlyArray<string>, unknown]>, Record<keyof typeof TARGET_TYPES, boolean>]
  > = [
    [
      'a delay',
      [[['spec', 'backoff'], { type: 'list', delays: ['3s', '6s', '12s'] }]],
      { rabbitmq: false, kafka: false, serviceBus: false },
    ],
    [
      'maxAttempts down',
      [[['spec', 'maxAttempts'], 3]],
      { rabbitmq: false, kafka: false, serviceBus: false },
    ],
    [
      'maxAttempts up',
      [
        [['spec', 'maxAttempts'], 5],
        [['spec', 'deadline'], '2h'],
      ],
      { rabbitmq: false, kafka: false, serviceBus: false },
    ],
    ['message TTL', [[['spec', 'messageTtl'], '2h']], { rabbitmq: false, kafka: false, serviceBus: false }],
    [
      'mode ttl-queues → quorum-delayed-retry',
      [
        [[...RABBIT, 'mode'], 'quorum-delayed-retry'],
        [[...RABBIT, 'brokerVersion'], '4.3.0'],
      ],
      { rabbitmq: false, kafka: false, serviceBus: false },
    ],
    [
      // A queue ignores its arguments on update: the new count is for queues declared from now on.
      'RabbitMQ quorum replicas 3 → 5',
      [[[...RABBIT, 'quorumReplicas'], 5]],
      { rabbitmq: false, kafka: false, serviceBus: false },
    ],
    [
      'Kafka partitions',
      [[[...KAFKA, 'partitions'], 6]],
      { rabbitmq: false, kafka: false, serviceBus: false },
    ],
    [
      'main queue rename',
      [[[...RABBIT, 'queue'], 'billing.order-placed.v2']],
      { rabbitmq: true, kafka: false, serviceBus: false },
    ],
    [
      'routing key',
      [[[...RABBIT, 'routingKey'], 'order.created']],
      { rabbitmq: true, kafka: false, serviceBus: false },
    ],
    [
      'source exchange no longer declared',
      [[[...RABBIT, 'declareExchange'], false]],
      { rabbitmq: true, kafka: false, serviceBus: false },
    ],
    [
      'dead letter renamed',
      [[['spec', 'deadLetter'], { name: 'billing.failed' }]],
      { rabbitmq: true, kafka: true, serviceBus: false },
    ],
    [
      'policy renamed',
      [[['metadata', 'name'], 'billing.order-placed-v2']],
      { rabbitmq: true, kafka: true, serviceBus: true },
    ],
    [
      'source topic renamed',
      [[[...KAFKA, 'topic'], 'bookstore.orders.v2']],
      { rabbitmq: false, kafka: true, serviceBus: false },
    ],
    [
      'subscription renamed',
      [[[...SB, 'subscription'], 'billing-v2']],
      { rabbitmq: false, kafka: false, serviceBus: true },
    ],
  ];
  const triggers = async (plan: RetryPlan) => {
    const recording = await build(plan);
    return Object.fromEntries(
      Object.entries(TARGET_TYPES).map(([target, type]) => [
        target,
        JSON.stringify(recording.registrations.find((each) => each.type === type)?.replacementTrigger),
      ]),
    );
  };
  it.each(edits)('%s', async (_name, changes, changed) => {
    const before = await triggers(billing);
    const after = await triggers(planOf(withValues(billingDocument(), changes)));
    expect(
      Object.fromEntries(
        Object.keys(TARGET_TYPES).map((target) => [target, before[target] !== after[target]]),
      ),
    ).toEqual(changed);
  });
});
