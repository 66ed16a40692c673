import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { TEMPLATE_OPTIONS } from './consumer-project';

/**
 * examples/pulumi-program/, the program examples/ci/pulumi.yml runs, as a team copies it: its own
 * files in a directory of the installed project, so it resolves the packed package and the peers
 * there. Compiled by tsc with its own tsconfig, then run under the SDK's ts-node with mocks.
 */
const ROOT = resolve(__dirname, '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'pulumi-program');
const project = inject('consumer');
const program = join(project, 'pulumi-program');
const BILLING = readFileSync(join(ROOT, 'policies', 'billing.yaml'), 'utf8');

beforeAll(() => {
  mkdirSync(program, { recursive: true });
  for (const file of ['index.ts', 'tsconfig.json', 'Pulumi.yaml', 'package.json'])
    copyFileSync(join(EXAMPLE, file), join(program, file));
});

/** A repository root holding `policies/` with these files, as GITHUB_WORKSPACE is in CI. */
function workspace(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'rt-workspace-'));
  mkdirSync(join(root, 'policies'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, 'policies', name), text);
  return root;
}

/** Runs the program under mocks with this stack config; the resource types it registered. */
function runProgram(root: string, config: Record<string, string>) {
  const result = spawnSync(process.execPath, [join(__dirname, 'load-program.cjs'), program], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GITHUB_WORKSPACE: root,
      POLICIES: 'policies',
      PULUMI_CONFIG: JSON.stringify(config),
    },
  });
  const last = result.status === 0 ? (result.stdout.trim().split('\n').pop() ?? '{}') : '{}';
  return {
    code: result.status,
    output: `${result.stdout}${result.stderr}`,
    types: ((JSON.parse(last) as { types?: string[] }).types ?? []) as string[],
  };
}

describe('examples/pulumi-program', () => {
  it('has the tsconfig `pulumi new typescript` writes, and depends on the package from git', () => {
    const tsconfig = JSON.parse(readFileSync(join(EXAMPLE, 'tsconfig.json'), 'utf8'));
    expect(tsconfig.compilerOptions).toEqual(TEMPLATE_OPTIONS);
    const manifest = JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8'));
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    // The README's Install section: from git, at the release tag, until it is on npm.
    expect(manifest.dependencies['retry-topology']).toBe(
      `git+https://github.com/retry-topology/retry-topology.git#v${version}`,
    );
  });

  it('compiles against the installed package with its own tsconfig', async () => {
    const tsc = join(project, 'node_modules', '.bin', 'tsc');
    const result = await promisify(execFile)(tsc, ['--noEmit', '--pretty', 'false', '-p', 'tsconfig.json'], {
      cwd: program,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? 'tsc failed' }));
    expect(result.stdout).toBe('');
  });

  it('builds each policy on the targets the stack configures, and says which it skipped', () => {
    const result = runProgram(workspace({ 'billing.yaml': BILLING }), {
      'rabbitmq:endpoint': 'http://127.0.0.1:15672',
      'rabbitmq:username': 'guest',
      'rabbitmq:password': 'guest',
    });
    expect(result.output).not.toMatch(/TSError|error TS/);
    expect(result.code).toBe(0);
    expect(result.types).toContain('retry-topology:index:RetryTopology');
    expect(result.types).toContain('rabbitmq:index/queue:Queue');
    expect(result.types).not.toContain('kafka:index/topic:Topic');
    expect(result.output).toContain(
      'billing.order-placed: kafka skipped: no kafka:bootstrapServers in stack config',
    );
  });

  it('stops on an invalid policy, with its finding', () => {
    const broken = BILLING.replace('initial: 1s', 'initial: soon');
    const result = runProgram(workspace({ 'billing.yaml': broken }), {
      'kafka:bootstrapServers': '["127.0.0.1:9092"]',
    });
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('invalid retry policies:');
    expect(result.output).toMatch(/✖ .*billing\.yaml:\d+:\d+ .*\[error invalid-duration\]/);
    expect(result.types).toEqual([]);
  });

  it('stops when the policy directory holds no policy file, instead of deploying nothing', () => {
    const result = runProgram(workspace({ 'notes.txt': 'not a policy' }), {});
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/no \.yaml or \.yml file in .*policies/);
  });
});
