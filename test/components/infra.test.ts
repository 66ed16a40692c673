import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { POLICY_DIR, type Recording, record, TYPES } from './harness';

/** The Pulumi program in infra/, run under mocks with stack config set the way Pulumi sets it. */

const ROOT = join(POLICY_DIR, '..');

/** A stack file's `config:` block as the engine hands it to the program (JSON for non-strings). */
function stackConfig(file: string): Record<string, string> {
  const { config } = parse(readFileSync(join(ROOT, 'stacks', file), 'utf8')) as {
    config: Record<string, unknown>;
  };
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
}

async function run(
  config: Record<string, string>,
  secretKeys: string[] = [],
): Promise<{ recording: Recording; logs: string[]; warnings: string[]; outputs: Record<string, unknown> }> {
  const { program } = await import('../../infra/program');
  const logs: string[] = [];
  const warnings: string[] = [];
  let outputs: Record<string, unknown> = {};
  const recording = await record(async () => {
    pulumi.runtime.setAllConfig(config, secretKeys);
    outputs = await program({
      root: ROOT,
      log: { info: (line) => logs.push(line), warn: (line) => warnings.push(line) },
    });
  });
  return { recording, logs, warnings, outputs };
}

describe.each(['Pulumi.dev.yaml', 'Pulumi.ci.yaml'])('stacks/%s', (file) => {
  it('builds RabbitMQ and Kafka on the local brokers and skips Service Bus with a log line', async () => {
    const { recording, logs, outputs } = await run({ ...stackConfig(file), 'rabbitmq:password': 'guest' }, [
      'rabbitmq:password',
    ]);
    expect(logs).toEqual([
      'billing.order-placed: serviceBus skipped: no retry-topology:serviceBus in stack config',
    ]);
    const rabbitProvider = recording.mockCalls.find((call) => call.type === 'pulumi:providers:rabbitmq');
    expect(rabbitProvider?.inputs).toMatchObject({ endpoint: 'http://127.0.0.1:15672', username: 'guest' });
    const kafkaProvider = recording.mockCalls.find((call) => call.type === 'pulumi:providers:kafka');
    // Provider inputs reach the engine as strings; false must be there, not the provider's TLS default.
    expect(kafkaProvider?.inputs).toMatchObject({
      bootstrapServers: '["127.0.0.1:9092"]',
      tlsEnabled: 'false',
    });
    expect(recording.mockCalls.filter((call) => call.type === TYPES.queue)).toHaveLength(5);
    expect(recording.mockCalls.filter((call) => call.type === TYPES.topic)).toHaveLength(5);
    expect(recording.mockCalls.some((call) => call.type.startsWith('azure-native:'))).toBe(false);
    // Dev and CI destroy their stacks and start again: nothing protected, nothing left behind.
    expect(recording.registrations.filter((each) => each.protect || each.retainOnDelete)).toEqual([]);
    for (const child of recording.registrations.filter((each) => each.type.startsWith('rabbitmq:'))) {
      expect(
        child.provider.startsWith('urn:pulumi:test::retry-topology::pulumi:providers:rabbitmq::rabbitmq::'),
      ).toBe(true);
    }
    expect(Object.keys(outputs.topologies as object)).toEqual(['billing.order-placed']);
  });

  it('holds no secret in plain text', () => {
    const text = readFileSync(join(ROOT, 'stacks', file), 'utf8');
    for (const [key, value] of Object.entries(stackConfig(file))) {
      if (/password|secret|key$/i.test(key)) expect(value, key).toMatch(/secure/);
    }
    expect(text).not.toMatch(/password:\s*\S/);
  });
});

it('configures Service Bus, consumers and a consumer password from config', async () => {
  const { recording, logs } = await run(
    {
      ...stackConfig('Pulumi.dev.yaml'),
      'rabbitmq:password': 'guest',
      'retry-topology:serviceBus': JSON.stringify({ resourceGroupName: 'rg', namespaceName: 'ns' }),
      'retry-topology:consumers': JSON.stringify({
        'billing.order-placed': {
          rabbitmqUser: 'billing',
          kafkaPrincipal: 'User:billing',
          serviceBusRule: 'billing',
        },
      }),
      'retry-topology:consumerPasswords': JSON.stringify({ billing: 'pw-from-config' }),
    },
    ['rabbitmq:password', 'retry-topology:consumerPasswords'],
  );
  expect(logs).toEqual([]);
  const user = recording.mockCalls.find((call) => call.type === TYPES.user);
  expect(user?.inputs.password).toEqual({
    [pulumi.runtime.specialSigKey]: pulumi.runtime.specialSecretSig,
    value: 'pw-from-config',
  });
  // billing.yaml: Read on the source topic, Read + Write on the retry topics' prefix, Write on the
  // DLT, Read on 2 groups (Describe comes with Read and Write, so it needs no ACL of its own).
  expect(recording.mockCalls.filter((call) => call.type === TYPES.acl)).toHaveLength(6);
  expect(recording.mockCalls.filter((call) => call.type === TYPES.sbQueueRule)).toHaveLength(1);
  for (const call of recording.mockCalls.filter((each) => !each.custom)) {
    expect(JSON.stringify(call.inputs)).not.toContain('pw-from-config');
  }
});

it('an invalid policy stops the program with every formatted issue and no stack trace', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'retry-topology-'));
  const text = readFileSync(join(POLICY_DIR, 'billing.yaml'), 'utf8').replace(
    'maxAttempts: 4',
    'maxAttempts: 0',
  );
  writeFileSync(join(dir, 'broken.yaml'), text);
  const failure = await run({
    ...stackConfig('Pulumi.dev.yaml'),
    'rabbitmq:password': 'guest',
    'retry-topology:policies': JSON.stringify([join(dir, 'broken.yaml')]),
  }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(pulumi.RunError.isInstance(failure)).toBe(true);
  expect((failure as Error).message).toMatch(
    /^invalid retry policies:\n✖ .*broken\.yaml:\d+:\d+ spec\.maxAttempts: .*\[error out-of-range\]/,
  );
});

it('missing config is named', async () => {
  const failure = (config: Record<string, string>) =>
    run(config).then(
      () => '',
      (error: Error) => error.message,
    );
  expect(await failure({})).toMatch(/retry-topology:policies is not set/);
  expect(
    await failure({
      'retry-topology:policies': '["policies/billing.yaml"]',
      'rabbitmq:endpoint': 'http://127.0.0.1:15672',
    }),
  ).toMatch(/rabbitmq:username and rabbitmq:password are needed/);
});

it('Pulumi.yaml runs infra/index.ts with stack config in stacks/', () => {
  const project = parse(readFileSync(join(ROOT, 'Pulumi.yaml'), 'utf8'));
  // Not `main: infra/`: the SDK would then find the root package.json and run its "exports"
  // entry (the policy library in dist/) instead of the program (seen with pulumi 3.248.0).
  expect(project).toMatchObject({
    name: 'retry-topology',
    runtime: 'nodejs',
    main: 'infra/index.ts',
    stackConfigDir: 'stacks',
  });
});

it('finds the project root from infra/, where Pulumi runs the program', async () => {
  const { projectRoot } = await import('../../infra/program');
  await record(() => undefined);
  expect(projectRoot(join(ROOT, 'infra'))).toBe(ROOT);
});

it('loads through Pulumi’s own TypeScript loader (vendored ts-node, type-checking) and runs', () => {
  const result = spawnSync(process.execPath, [join(__dirname, 'pulumi-load.cjs'), ROOT], {
    encoding: 'utf8',
  });
  expect(result.stderr).not.toMatch(/TSError|Unable to compile|Cannot find module/);
  expect(result.status).toBe(0);
  const { types, policies } = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}');
  expect(policies).toEqual(['billing.order-placed']);
  expect(types).toContain('retry-topology:index:RetryTopology');
  expect(types.filter((type: string) => type === TYPES.queue)).toHaveLength(5);
}, 120_000);
