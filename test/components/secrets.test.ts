import * as pulumi from '@pulumi/pulumi';
import { expect, it } from 'vitest';
import { examplePlans, type Recording, record, TYPES } from './harness';

/**
 * Args given to a component's super() are stored in state as plaintext. Under mocks in
 * @pulumi/pulumi 3.248 a ComponentResource registers through the same registerResource call as a
 * custom resource: the mock's newResource receives `custom: false` and, as `inputs`, exactly the
 * args handed to super() (unless PULUMI_NODEJS_SKIP_COMPONENT_INPUTS is set, which the tests
 * rule out by finding the policy name there). registerOutputs stores the outputs in the mock
 * monitor. A password must appear in neither, only in the User resource, wrapped as a secret.
 */

const billing = examplePlans().find(({ file }) => file === 'billing.yaml')?.plan;
const PASSWORD = 'pw-7d1e5b9c-never-in-component-state';

function expectOnlyInTheUser(recording: Recording) {
  // Delete guards are components with no inputs and empty outputs.
  const guards = recording.mockCalls.filter((call) => call.type === 'retry-topology:index:DeleteGuard');
  for (const guard of guards) expect(guard.inputs).toEqual({});
  const components = recording.mockCalls.filter((call) => !call.custom && !guards.includes(call));
  expect(components.length).toBeGreaterThan(0);
  for (const call of components) {
    expect(call.inputs.policy, `${call.type} inputs are recorded`).toBe(billing?.policy);
    expect(JSON.stringify(call.inputs), `${call.type} inputs`).not.toContain(PASSWORD);
  }
  expect(recording.outputs.size).toBe(components.length + guards.length);
  for (const [urn, outputs] of recording.outputs)
    expect(JSON.stringify(outputs), `${urn} outputs`).not.toContain(PASSWORD);

  const users = recording.mockCalls.filter((call) => call.type === TYPES.user);
  expect(users).toHaveLength(1);
  // The password did reach the one resource that needs it, as a secret.
  expect(users[0]?.inputs.password).toEqual({
    [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig,
    value: PASSWORD,
  });
  for (const call of recording.mockCalls.filter((each) => each.custom && each.type !== TYPES.user)) {
    expect(JSON.stringify(call.inputs), `${call.type} ${call.name}`).not.toContain(PASSWORD);
  }
}

it('a secret password appears in no component input or output, only in the User, as a secret', async () => {
  if (!billing) throw new Error('policies/billing.yaml is missing');
  const { RetryTopology } = await import('../../components');
  const recording = await record(() => {
    new RetryTopology('billing', {
      plan: billing,
      rabbitmq: { consumerUser: { name: 'billing', password: pulumi.secret(PASSWORD) } },
      serviceBus: { resourceGroupName: 'rg', namespaceName: 'ns' },
    });
  });
  expectOnlyInTheUser(recording);
});

it('a password given as plain text is made secret before it reaches the User', async () => {
  if (!billing) throw new Error('policies/billing.yaml is missing');
  const { RabbitMqRetryTopology } = await import('../../components/rabbitmq');
  const recording = await record(() => {
    new RabbitMqRetryTopology('billing', {
      plan: billing,
      consumerUser: { name: 'billing', password: PASSWORD },
    });
  });
  expectOnlyInTheUser(recording);
});
