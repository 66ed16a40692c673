import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import {
  BUNDLER_OPTIONS,
  TEMPLATE_NODE10_OPTIONS,
  TEMPLATE_OPTIONS,
  writeTsconfig,
} from './consumer-project';

/**
 * The package as a team gets it: packed from a fresh clone, installed by npm into a project made
 * like `pulumi new typescript`, loaded by Node, compiled by the project's own tsc (no
 * esModuleInterop, no skipLibCheck), run as a Pulumi program, and its command line run.
 */
const project = inject('consumer');
const tarball = inject('tarball');
const installed = join(project, 'node_modules', 'retry-topology');
const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, string>;
  [key: string]: unknown;
};
/** Every code entry point the package exports, as an import specifier. */
const entries = Object.entries(manifest.exports)
  .filter(([, target]) => target.endsWith('.js'))
  .map(([key]) => `retry-topology${key.slice(1)}`);

describe('the tarball', () => {
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');

  it('holds the licence, the readme, the compiled code with its types, the schema and the docs', () => {
    for (const file of [
      'package/LICENSE',
      'package/README.md',
      'package/dist/cli/main.js',
      'package/dist/policy/index.d.ts',
      'package/schema/retry-policy.schema.json',
      'package/docs/codes/README.md',
    ])
      expect(files).toContain(file);
    for (const entry of Object.values(manifest.exports)) expect(files).toContain(`package/${entry.slice(2)}`);
  });

  it('holds no sources, tests, configs or anything the build left over from other folders', () => {
    const unexpected = files.filter(
      (file) =>
        !/^package\/(LICENSE|README\.md|package\.json)$/.test(file) &&
        !/^package\/(dist\/(policy|runtime|components|cli)|schema|docs)\//.test(file),
    );
    expect(unexpected).toEqual([]);
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  it('says what it is and where it comes from', () => {
    expect(manifest.license).toBe('Apache-2.0');
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(
      /Apache License\s+Version 2\.0, January 2004[\s\S]*END OF TERMS AND CONDITIONS/,
    );
    expect(manifest.repository).toMatchObject({
      type: 'git',
      url: expect.stringMatching(/^git\+https:\/\//),
    });
    expect(manifest.homepage).toMatch(/^https:\/\//);
    expect(manifest.bugs).toMatchObject({ url: expect.stringMatching(/^https:\/\//) });
    expect((manifest.keywords as string[]).length).toBeGreaterThan(3);
  });
});

describe('the installed package', () => {
  it('loads with plain Node, every entry point', () => {
    const script = `for (const path of ${JSON.stringify(entries)}) console.log(path, Object.keys(require(path)).length);`;
    const result = spawnSync(process.execPath, ['-e', script], { cwd: project, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const lines = result.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(' ')[0])).toEqual(entries);
    for (const line of lines) expect(Number(line.split(' ')[1])).toBeGreaterThan(0);
  });

  it('puts the schema where the README says', () => {
    const resolved = spawnSync(
      process.execPath,
      ['-p', "require.resolve('retry-topology/schema/retry-policy.schema.json')"],
      { cwd: project, encoding: 'utf8' },
    );
    expect(resolved.stdout.trim()).toBe(join(installed, 'schema', 'retry-policy.schema.json'));
  });

  describe('its command line, as `npx retry-topology`', () => {
    const bin = join(project, 'node_modules', '.bin', 'retry-topology');
    const run = (...args: string[]) => spawnSync(bin, args, { cwd: project, encoding: 'utf8' });
    copyFileSync(join(__dirname, '..', '..', 'policies', 'billing.yaml'), join(project, 'billing.yaml'));

    it('validates and plans a policy', () => {
      const validated = run('validate', 'billing.yaml');
      expect(validated.status).toBe(0);
      expect(validated.stdout + validated.stderr).toMatch(/1 policy in 1 file valid \(0 errors/);
      const plan = run('plan', 'billing.yaml', '--format', 'json');
      expect(plan.status).toBe(0);
      expect(JSON.parse(plan.stdout)).toMatchObject({ policy: 'billing.order-placed' });
    });

    it('refuses a broken policy with its line and no stack trace', () => {
      writeFileSync(
        join(project, 'broken.yaml'),
        readFileSync(join(project, 'billing.yaml'), 'utf8').replace('initial: 1s', 'initial: fast'),
      );
      const result = run('validate', 'broken.yaml');
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(
        /broken\.yaml:\d+:\d+ spec\.backoff\.initial: .*\[error invalid-duration\]/,
      );
      expect(result.stderr).not.toMatch(/\n\s+at /);
    });

    it('prints the schema that names its own published URL', () => {
      const schema = JSON.parse(run('schema').stdout) as { $id: string };
      expect(schema.$id).toContain(`retry-topology@${manifest.version}/schema/retry-policy.schema.json`);
      expect(schema).toEqual(
        JSON.parse(readFileSync(join(installed, 'schema', 'retry-policy.schema.json'), 'utf8')),
      );
    });
  });
});

describe("the public types, under the project's own compiler", () => {
  const tsc = (config: string) =>
    spawnSync(join(project, 'node_modules', '.bin', 'tsc'), ['--noEmit', '--pretty', 'false', '-p', config], {
      cwd: project,
      encoding: 'utf8',
    });

  /** Every entry point's declarations loaded and checked, and the object API used as documented. */
  function entriesProgram(name: string, skip: string[]): string {
    const used = entries.filter((entry) => !skip.includes(entry));
    writeFileSync(
      join(project, name),
      [
        ...used.map((entry, index) => `import * as entry${index} from '${entry}';`),
        "import { definePolicy, derivePlan, parsePolicy, type PolicyInput, type RetryPlan } from 'retry-topology';",
        'const input: PolicyInput = definePolicy({',
        "  apiVersion: 'retry-topology/v1',",
        "  kind: 'RetryPolicy',",
        "  metadata: { name: 'billing.order-placed' },",
        '  spec: {',
        "    consumer: 'billing', maxAttempts: 3, backoff: { type: 'list', delays: ['1s', '5s'] },",
        "    classify: { presets: ['http-transient'] }, idempotency: { idempotent: true },",
        "    targets: { kafka: { topic: 'orders', consumerGroup: 'billing', partitions: 3 } },",
        '  },',
        '});',
        'const plan: RetryPlan = derivePlan(parsePolicy(input));',
        'export const group: string | undefined = plan.targets.kafka?.consumerGroup;',
        `export const all = [${used.map((_, index) => `entry${index}`).join(', ')}];`,
        '',
      ].join('\n'),
    );
    return name;
  }

  it.each([
    ['the `pulumi new typescript` tsconfig (nodenext)', 'nodenext', TEMPLATE_OPTIONS, []],
    ['moduleResolution bundler', 'bundler', BUNDLER_OPTIONS, []],
    // @azure/service-bus 7.9.5's own declarations `import Long from 'long'`, which needs
    // esModuleInterop under this resolution; the test below checks that this is still so.
    [
      'the earlier template (commonjs, moduleResolution node)',
      'node10',
      TEMPLATE_NODE10_OPTIONS,
      ['retry-topology/runtime/servicebus'],
    ],
  ] as const)('compile with %s', (_name, key, options, skip) => {
    const program = entriesProgram(`entries.${key}.ts`, [...skip]);
    const result = tsc(writeTsconfig(project, `tsconfig.${key}.json`, options, [program]));
    expect(result.stdout).toBe('');
    expect(result.status).toBe(0);
  });

  it("leaves out of the node10 check only what @azure/service-bus's own declarations break", () => {
    writeFileSync(join(project, 'servicebus-only.ts'), "export * from '@azure/service-bus';\n");
    const result = tsc(
      writeTsconfig(project, 'tsconfig.sb.json', TEMPLATE_NODE10_OPTIONS, ['servicebus-only.ts']),
    );
    const errors = result.stdout.trim().split('\n');
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).toMatch(/^node_modules\/@azure\/service-bus\/.*error TS1259/);
  });
});

describe('a Pulumi program', () => {
  it('runs under the Pulumi SDK (type-checked by its ts-node) and builds the topology', () => {
    copyFileSync(join(__dirname, 'user-program.ts.txt'), join(project, 'index.ts'));
    copyFileSync(join(project, 'billing.yaml'), join(project, 'policy.yaml'));
    const result = spawnSync(process.execPath, [join(__dirname, 'load-program.cjs'), project], {
      encoding: 'utf8',
    });
    expect(result.stderr).not.toMatch(/TSError|Cannot find module|error TS/);
    expect(result.status).toBe(0);
    const { types, consumer, resolved } = JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}');
    expect(resolved).toContain(join('node_modules', 'retry-topology', 'dist', 'components'));
    expect(consumer).toBe('function');
    expect(types).toContain('retry-topology:index:RetryTopology');
    expect(types).toContain('retry-topology:index:RabbitMqRetryTopology');
    expect(types).toContain('rabbitmq:index/queue:Queue');
    expect(types).toContain('kafka:index/topic:Topic');
  });
});
