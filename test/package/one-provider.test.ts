import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * Three throwaway projects, each with the packed package and exactly one Pulumi provider SDK
 * installed (and @pulumi/pulumi), as a RabbitMQ-only, Kafka-only or Service-Bus-only team has
 * them. In each: the target's own entry point loads, the other two fail with one error naming
 * the package to install, `RetryTopology` builds a plan that names only that target and refuses
 * one that names another, only that provider's files are ever loaded, and the compiler finds
 * no reference to a provider that is not installed.
 */

const ROOT = resolve(__dirname, '..', '..');
const run = promisify(execFile);
const OWN = {
  rabbitmq: { sdk: 'rabbitmq', entry: 'rabbitmq', type: 'rabbitmq:index/queue:Queue' },
  kafka: { sdk: 'kafka', entry: 'kafka', type: 'kafka:index/topic:Topic' },
  serviceBus: { sdk: 'azure-native', entry: 'servicebus', type: 'azure-native:servicebus:Subscription' },
} as const;
type Own = keyof typeof OWN;
const TARGETS = Object.keys(OWN) as Own[];
const NPM = { rabbitmq: '@pulumi/rabbitmq', kafka: '@pulumi/kafka', serviceBus: '@pulumi/azure-native' };
const ALL_SDKS = ['rabbitmq', 'kafka', 'azure-native'];

// A program as a user writes it, against each entry point its project can load.
const program = (own: Own) => `import * as pulumi from '@pulumi/pulumi';
import { derivePlan, type RetryPlan } from 'retry-topology';
import { RetryTopology, TopologyError } from 'retry-topology/components';
import * as own from 'retry-topology/components/${OWN[own].entry}';

export function build(plan: RetryPlan): pulumi.Output<string> | undefined {
  const topology = new RetryTopology('billing', { plan, serviceBus: { resourceGroupName: 'rg', namespaceName: 'ns' } });
  const code: TopologyError['code'] = 'provider-not-installed';
  return topology.${own}?.planJson ?? (Object.keys(own).length > 0 && code ? topology.planJson : undefined);
}
export const derive = derivePlan;
`;

let base: string;
const projects = {} as Record<Own, string>;
const results = {} as Record<Own, Record<string, unknown>>;
const compiled = {} as Record<Own, string>;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'rt-one-provider-'));
  // The one tarball the `package` project packed from a fresh clone (test/package/setup.ts).
  const tarball = inject('tarball');
  for (const own of TARGETS) {
    const project = join(base, own);
    const modules = join(project, 'node_modules');
    mkdirSync(join(modules, 'retry-topology'), { recursive: true });
    mkdirSync(join(modules, '@pulumi'));
    execFileSync('tar', ['-xzf', tarball, '-C', join(modules, 'retry-topology'), '--strip-components=1']);
    // Everything else a user would have installed: the repository's copies, minus the other providers.
    for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
      if (['.bin', 'retry-topology', '@pulumi'].includes(entry)) continue;
      symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry));
    }
    for (const sdk of ['pulumi', OWN[own].sdk]) {
      symlinkSync(join(ROOT, 'node_modules', '@pulumi', sdk), join(modules, '@pulumi', sdk));
    }
    // The check runs from inside the project, so nothing resolves from the repository.
    copyFileSync(join(__dirname, 'one-provider-check.cjs'), join(project, 'check.cjs'));
    writeFileSync(join(project, 'index.ts'), program(own));
    // `pulumi new typescript`'s tsconfig.json.
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          outDir: 'bin',
          target: 'es2020',
          module: 'commonjs',
          moduleResolution: 'node',
          sourceMap: true,
          experimentalDecorators: true,
          pretty: false,
          noFallthroughCasesInSwitch: true,
          noImplicitReturns: true,
          forceConsistentCasingInFileNames: true,
        },
        files: ['index.ts'],
      }),
    );
    projects[own] = project;
  }
  // The three projects side by side: the check, then the compiler (tsc --noEmit with the template's
  // tsconfig: no skipLibCheck, so every declaration file the program reaches is read and checked).
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  await Promise.all(
    TARGETS.map(async (own) => {
      const { stdout } = await run(process.execPath, ['check.cjs', own], { cwd: projects[own] });
      results[own] = JSON.parse(stdout.trim().split('\n').pop() ?? '{}');
      compiled[own] = await run(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], {
        cwd: projects[own],
      }).then(
        ({ stdout }) => `exit 0\n${stdout}`,
        (error: { code?: number; stdout?: string }) => `exit ${error.code}\n${error.stdout ?? ''}`,
      );
    }),
  );
}, 300_000);

afterAll(() => {
  if (base) rmSync(base, { recursive: true, force: true });
});

describe.each(TARGETS)('a project with only the %s provider installed', (own) => {
  it('its own entry point loads; the others fail with one error naming the package to install', () => {
    const entries = results[own]?.entries as Record<
      Own,
      { ok: boolean; value?: string[]; code?: string; message?: string }
    >;
    for (const target of TARGETS) {
      const entry = entries[target];
      if (target === own) {
        expect(entry.ok).toBe(true);
        expect(entry.value).toContain(
          {
            rabbitmq: 'RabbitMqRetryTopology',
            kafka: 'KafkaRetryTopology',
            serviceBus: 'ServiceBusRetryTopology',
          }[own],
        );
      } else {
        expect(entry).toMatchObject({ ok: false, code: 'provider-not-installed', name: 'TopologyError' });
        expect(entry.message).toContain(`npm install ${NPM[target]}@`);
      }
    }
  });

  it('RetryTopology builds a plan naming only this target, and names the missing package for another', () => {
    const result = results[own] as Record<string, { ok: boolean; code?: string; message?: string }>;
    expect(result.aggregateKeys).toContain('RetryTopology');
    expect(result.withOwn).toEqual({ ok: true, value: true });
    expect(result.ownClass).toEqual({ ok: true, value: true });
    expect(results[own]?.types).toContain(OWN[own].type);
    const missing = TARGETS.find((target) => target !== own) as Own;
    expect(result.withAll).toMatchObject({ ok: false, code: 'provider-not-installed' });
    expect(result.withAll?.message).toContain(`policy "billing.placed" has a ${missing} target`);
    expect(result.withAll?.message).toContain(NPM[missing]);
  });

  it('loads no other provider SDK, ever', () => {
    expect(results[own]?.providersLoaded).toEqual([OWN[own].sdk]);
  });

  it('the compiler finds no reference to a provider that is not installed', () => {
    const output = compiled[own] ?? '';
    expect(output).toMatch(/^exit \d+/);
    // Other diagnostics (if any) are another concern; this test is about the providers only.
    const others = ALL_SDKS.filter((sdk) => sdk !== OWN[own].sdk).join('|');
    const missing = new RegExp(`Cannot find module '(@pulumi/(${others})|retry-topology)`);
    expect(output.split('\n').filter((line) => missing.test(line))).toEqual([]);
  });
});
