import * as pulumi from '@pulumi/pulumi';
import { expect, it } from 'vitest';
import { examplePlans, record, TYPES } from './harness';

/**
 * A forgotten setMocks does not fail: the SDK fakes URNs and every test above would pass on
 * nothing. This one fails then: it counts what the mock's newResource really received.
 */

const billing = examplePlans().find(({ file }) => file === 'billing.yaml')?.plan;

it('the mock received every resource: newResource calls by type are what billing.yaml implies', async () => {
  if (!billing) throw new Error('policies/billing.yaml is missing');
  const { RetryTopology } = await import('../../components');
  const recording = await record(() => {
    new RetryTopology('billing', {
      plan: billing,
      rabbitmq: { consumerUser: { name: 'billing', password: pulumi.secret('x') } },
      kafka: { consumerPrincipal: 'User:billing' },
      serviceBus: { resourceGroupName: 'rg', namespaceName: 'ns', consumerRuleName: 'billing' },
    });
  });
  const counts: Record<string, number> = {};
  for (const call of recording.mockCalls) counts[call.type] = (counts[call.type] ?? 0) + 1;
  // Written out by hand from the plan text (`retry-topology plan policies/billing.yaml`), so the
  // test does not derive its expectation from the code under test.
  expect(counts).toEqual({
    'retry-topology:index:RetryTopology': 1,
    'retry-topology:index:RabbitMqRetryTopology': 1,
    'retry-topology:index:KafkaRetryTopology': 1,
    'retry-topology:index:ServiceBusRetryTopology': 1,
    // one per target, depending on all of that target's resources
    'retry-topology:index:DeleteGuard': 3,
    [TYPES.exchange]: 3,
    [TYPES.queue]: 5,
    [TYPES.policy]: 5,
    [TYPES.binding]: 5,
    [TYPES.user]: 1,
    [TYPES.permissions]: 1,
    [TYPES.topic]: 5,
    // source Read + the retry topics' prefix × (Read, Write) + DLT Write + two groups × Read, as
    // the plan lists them (Describe comes with Read and Write)
    [TYPES.acl]: 6,
    [TYPES.sbSubscription]: 1,
    [TYPES.sbQueue]: 1,
    [TYPES.sbQueueRule]: 1,
  });
  expect(recording.mockCalls.filter((call) => !call.custom)).toHaveLength(7);
});

it('each record() gets fresh mocks: a second build does not see the first one', async () => {
  if (!billing) throw new Error('policies/billing.yaml is missing');
  const { KafkaRetryTopology } = await import('../../components/kafka');
  const first = await record(() => {
    new KafkaRetryTopology('one', { plan: billing });
  });
  const second = await record(() => {
    new KafkaRetryTopology('two', { plan: billing });
  });
  expect(first.mockCalls.map((call) => call.name)).not.toContain('two-dlt');
  expect(second.mockCalls.map((call) => call.name)).not.toContain('one-dlt');
  expect(second.mockCalls).toHaveLength(1 + 5 + 1);
});
