import { execFileSync, spawnSync } from 'node:child_process';
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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The package as users get it: `npm pack`ed, unpacked into a project's node_modules, and loaded
 * by a default Pulumi TypeScript program (`moduleResolution: node`, which ignores "exports": the
 * subpaths resolve through "typesVersions") and by plain Node.
 */
const ROOT = resolve(__dirname, '..', '..');
let project: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'rt-user-'));
  const modules = join(project, 'node_modules');
  mkdirSync(join(modules, 'retry-topology'), { recursive: true });
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', project], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  execFileSync('tar', [
    '-xzf',
    join(project, tarball),
    '-C',
    join(modules, 'retry-topology'),
    '--strip-components=1',
  ]);
  // Everything else the user would have installed: the repository's own copies.
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry === '.bin' || entry === 'retry-topology') continue;
    symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry));
  }
  copyFileSync(join(__dirname, 'user-program.ts.txt'), join(project, 'index.ts'));
  copyFileSync(join(ROOT, 'policies', 'billing.yaml'), join(project, 'policy.yaml'));
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
        pretty: true,
        noFallthroughCasesInSwitch: true,
        noImplicitReturns: true,
        forceConsistentCasingInFileNames: true,
      },
      files: ['index.ts'],
    }),
  );
}, 120_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the compiled code, its types and the schema, and no sources or tests', () => {
    const files = execFileSync(
      'tar',
      ['-tzf', join(project, readdirSync(project).find((f) => f.endsWith('.tgz')) ?? '')],
      { encoding: 'utf8' },
    );
    expect(files).toContain('package/dist/components/index.js');
    expect(files).toContain('package/dist/runtime/rabbitmq/index.d.ts');
    expect(files).toContain('package/schema/retry-policy.schema.json');
    expect(files).not.toMatch(/package\/(test|components|policy)\//);
  });

  it('loads in a default Pulumi TypeScript program and builds the topology', () => {
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
  }, 120_000);

  it('loads with plain Node, every subpath', () => {
    const script = [
      "for (const path of ['retry-topology', 'retry-topology/runtime', 'retry-topology/runtime/rabbitmq',",
      "  'retry-topology/runtime/kafka', 'retry-topology/runtime/servicebus', 'retry-topology/components'])",
      '  console.log(path, Object.keys(require(path)).length > 0);',
    ].join('\n');
    const result = spawnSync(process.execPath, ['-e', script], { cwd: project, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(
      result.stdout
        .trim()
        .split('\n')
        .every((line) => line.endsWith(' true')),
    ).toBe(true);
  });
});
