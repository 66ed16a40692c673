import * as kafka from '@pulumi/kafka';
import * as rabbitmq from '@pulumi/rabbitmq';
import { expect, it } from 'vitest';
import type { RetryTopologyArgs } from '../../components';
import { billingDocument, planOf, type Recording, type Registration, record, TYPES } from './harness';

/** Resource options reach the children: defaults by lifecycle, opt-outs, providers, aliases. */

const plan = planOf(billingDocument());
const where = { resourceGroupName: 'rg', namespaceName: 'ns' };

async function build(
  args: Omit<RetryTopologyArgs, 'plan' | 'serviceBus'> = {},
  opts: import('@pulumi/pulumi').ComponentResourceOptions = {},
): Promise<Map<string, Registration>> {
  const { RetryTopology } = await import('../../components');
  const recording: Recording = await record(() => {
    new RetryTopology('billing', { plan, serviceBus: where, ...args }, opts);
  });
  return new Map(
    recording.registrations.map((each) => [`${each.type} ${each.name.replace(/^billing-?/, '')}`, each]),
  );
}

function pick(registrations: Map<string, Registration>, type: string, key: string): Registration {
  const found = registrations.get(`${type} ${key}`);
  if (!found) throw new Error(`no ${type} ${key}`);
  return found;
}

it('defaults: what holds messages for good is protected, retry levels are retained, the rest is plain', async () => {
  const children = await build({ kafka: { consumerPrincipal: 'User:billing' } });
  for (const [type, key] of [
    [TYPES.queue, 'main-queue'],
    [TYPES.queue, 'dlq'],
    [TYPES.policy, 'main-queue-policy'],
    [TYPES.policy, 'dlq-policy'],
    [TYPES.exchange, 'source-exchange'],
    [TYPES.exchange, 'dlx'],
    [TYPES.binding, 'dlx-to-dlq'],
    [TYPES.binding, 'source-exchange-to-main-queue'],
    [TYPES.topic, 'dlt'],
    [TYPES.topic, 'source-topic'],
    [TYPES.sbSubscription, 'subscription'],
    [TYPES.sbQueue, 'retry-queue'],
  ] as const) {
    const child = pick(children, type, key);
    expect([key, child.protect, child.retainOnDelete]).toEqual([key, true, false]);
  }
  for (const [type, key] of [
    [TYPES.queue, 'wait-1'],
    [TYPES.policy, 'wait-3-policy'],
    [TYPES.binding, 'retry-exchange-to-wait-2'],
    [TYPES.exchange, 'retry-exchange'],
    [TYPES.topic, 'retry-topic-1'],
    // The retry topics' ACLs stay with a kept retry topic, so its records can still be read.
    [TYPES.acl, 'retry-topics-acl-read'],
    [TYPES.acl, 'retry-topics-acl-write'],
  ] as const) {
    const child = pick(children, type, key);
    expect([key, child.protect, child.retainOnDelete]).toEqual([key, false, true]);
  }
  for (const [type, key] of [
    [TYPES.acl, 'dlt-acl-write'],
    [TYPES.acl, 'group-acl-read'],
  ] as const) {
    const child = pick(children, type, key);
    expect([key, child.protect, child.retainOnDelete]).toEqual([key, false, false]);
  }
});

it('protectMessages: false unprotects; a target can override the shared setting', async () => {
  const children = await build({ protectMessages: false, kafka: { protectMessages: true } });
  expect(pick(children, TYPES.queue, 'main-queue').protect).toBe(false);
  expect(pick(children, TYPES.sbSubscription, 'subscription').protect).toBe(false);
  expect(pick(children, TYPES.topic, 'dlt').protect).toBe(true);
});

it('retainRetryLevels: false deletes a removed level like any other resource', async () => {
  const children = await build({ retainRetryLevels: false });
  expect(pick(children, TYPES.queue, 'wait-1').retainOnDelete).toBe(false);
  expect(pick(children, TYPES.topic, 'retry-topic-1').retainOnDelete).toBe(false);
});

it('protect and retainOnDelete on the component reach every child', async () => {
  const children = await build({ protectMessages: false }, { protect: true, retainOnDelete: true });
  for (const [key, child] of children) {
    // A delete guard is an empty component: there is nothing of it to retain.
    const retained = child.type !== 'retry-topology:index:DeleteGuard';
    expect([key, child.protect, child.retainOnDelete]).toEqual([key, true, retained]);
  }
});

it('a provider per target reaches that target’s children only; aliases stay on the component', async () => {
  const { RetryTopology } = await import('../../components');
  const recording = await record(() => {
    const local = new rabbitmq.Provider('local-rabbitmq', {
      endpoint: 'http://127.0.0.1:15672',
      username: 'guest',
      password: 'guest',
    });
    const broker = new kafka.Provider('local-kafka', {
      bootstrapServers: ['127.0.0.1:9092'],
      tlsEnabled: false,
    });
    new RetryTopology(
      'billing',
      { plan, targets: ['rabbitmq', 'kafka'], rabbitmq: { provider: local } },
      { providers: [broker], aliases: [{ name: 'billing-old' }] },
    );
  });
  const rabbitProvider = recording.registrations.find((each) => each.name === 'local-rabbitmq');
  const kafkaProvider = recording.registrations.find((each) => each.name === 'local-kafka');
  const children = recording.registrations.filter(
    (each) => each.custom && !each.type.startsWith('pulumi:providers:'),
  );
  expect(children.length).toBeGreaterThan(20);
  for (const child of children) {
    const expected = child.type.startsWith('rabbitmq:') ? rabbitProvider?.urn : kafkaProvider?.urn;
    expect(child.provider.startsWith(`${expected}::`), `${child.name} uses ${expected}`).toBe(true);
  }
  const top = recording.registrations.find((each) => each.type === 'retry-topology:index:RetryTopology');
  expect(top?.aliases).toBe(1);
  // The engine derives a child's aliases from its parent's; a copy would alias the wrong URN.
  for (const each of recording.registrations.filter((one) => one !== top)) expect(each.aliases).toBe(0);
});
