import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../cli/run';
import { ISSUE_CODES } from '../../policy';
import { BILLING, BILLING_UNREVIEWED, cli, tempPolicy } from './cli-harness';

/** Each test runs the CLI several times; a loaded 2-core machine can take seconds for each. */
const SLOW_MS = 60_000;

/** What the CI gate reads, and what it says when it reads nothing. */

const SHIPPING = readFileSync('policies/shipping.yaml', 'utf8');

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'rt-tree-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The CLI in-process, with text on standard input. */
async function cliWithStdin(stdin: string, ...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    stdin: async () => Buffer.from(stdin),
  });
  return { code, out: out.join(''), err: err.join('\n') };
}

describe('validate finds what it is pointed at (item 1)', { timeout: SLOW_MS }, () => {
  it('searches subdirectories, and .YAML in any case', async () => {
    const root = tree({
      'team-a/billing.YAML': BILLING,
      'team-b/nested/deeper/shipping.yml': SHIPPING,
    });
    const result = await cli('validate', root);
    expect(result.code).toBe(0);
    expect(result.out).toContain('✔ 3 policies in 2 files valid');
  });

  it('an empty directory fails with a clear message, not "0 policies valid"', async () => {
    const root = tree({});
    const result = await cli('validate', root);
    expect(result.code).toBe(1);
    expect(result.out).not.toContain('✔');
    expect(result.out).toContain(
      `${root} (document): no policy files here: no .yaml or .yml file in it or below it [error no-policy-files]`,
    );
  });

  it('a tree of team folders without a policy fails too', async () => {
    const root = tree({ 'team-a/README.md': '# a', 'team-b/notes.txt': 'b' });
    expect((await cli('validate', root)).code).toBe(1);
  });

  it('node_modules and hidden directories are not searched', async () => {
    const root = tree({
      'policies/billing.yaml': BILLING,
      'node_modules/x/policy.yaml': BILLING.replace('billing.order-placed', 'copied'),
      '.git/x.yaml': 'not: yaml: at: all',
    });
    const result = await cli('validate', root);
    expect(result.code).toBe(0);
    expect(result.out).toContain('1 policy in 1 file');
  });
});

describe('what is not a policy, and what is named twice (item 2)', { timeout: SLOW_MS }, () => {
  it('a file named twice is validated once: no duplicate-policy-name against itself', async () => {
    const result = await cli('validate', 'policies/billing.yaml', 'policies/billing.yaml');
    expect(result.code).toBe(0);
    expect(result.err).not.toContain('duplicate-policy-name');
    expect(result.out).toContain('1 policy in 1 file');
  });

  it('a Pulumi.yaml beside the policies is skipped, and the output says so', async () => {
    const root = tree({
      'billing.yaml': BILLING,
      'Pulumi.yaml': 'name: shop\nruntime: nodejs\n',
      'k8s/deployment.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: x }\n',
    });
    const result = await cli('validate', root);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /ℹ .*Pulumi\.yaml:1:1 \(document\): skipped: a YAML file, not a retry policy .*\[note not-a-policy\]/,
    );
    expect(result.out).toMatch(/ℹ .*deployment\.yaml.*\[note not-a-policy\]/);
    expect(result.out).toContain('1 policy in 3 files valid (0 errors, 0 warnings, 3 notes)');
  });

  it('a directory of YAML files none of which is a policy checked nothing: it fails', async () => {
    const root = tree({ 'Pulumi.yaml': 'name: shop\nruntime: nodejs\n' });
    const result = await cli('validate', root);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/1 YAML file found, none of them a retry policy.*\[error no-policy-files\]/);
  });

  it('a broken policy in a directory is checked, not skipped: its kind says what it is', async () => {
    const root = tree({ 'billing.yaml': BILLING.replace('apiVersion: retry-topology/v1', 'apiVersion: v1') });
    const result = await cli('validate', root);
    expect(result.code).toBe(1);
    expect(result.out).toContain('[error invalid-value]');
  });

  it('a named file that is not a policy fails with one line saying so, not a schema error per key', async () => {
    const pulumi = tempPolicy('name: shop\nruntime: nodejs\ndescription: the shop\n', 'Pulumi.yaml');
    for (const argv of [
      ['validate', pulumi],
      ['plan', pulumi],
    ]) {
      const result = await cli(...argv);
      expect(result.code, argv[0]).toBe(1);
      const findings = (argv[0] === 'validate' ? result.out : result.err)
        .split('\n')
        .filter((line) => /\[(error|warning|note) /.test(line));
      expect(findings, argv[0]).toEqual([
        expect.stringMatching(
          /^✖ .*Pulumi\.yaml:1:1 \(document\): this YAML file is not a retry policy \(no kind: RetryPolicy, no apiVersion: retry-topology\/v1\).*\[error no-policy\]$/,
        ),
      ]);
    }
    const diff = await cli('diff', 'policies/billing.yaml', pulumi);
    expect(diff.code).toBe(1);
    expect(diff.out.match(/\[error [a-z-]+\]/g)).toEqual(['[error no-policy]']);
  });

  it('a named file whose kind or apiVersion is ours is a policy with errors: every finding', async () => {
    const result = await cli('validate', tempPolicy('kind: RetryPolicy\nname: shop\n', 'broken.yaml'));
    expect(result.code).toBe(1);
    expect(result.out).toContain('[error required]');
    expect(result.out).toContain('unknown key "name"');
    expect(result.err).not.toContain('no-policy');
  });
});

describe('plan, render and simulate say what is wrong (item 3)', { timeout: SLOW_MS }, () => {
  const kafkaOnly = () =>
    tempPolicy(
      BILLING.replace(/ {4}rabbitmq:\n( {6}.*\n)+/, '').replace(/ {4}serviceBus:\n( {6}.*\n?)+/, ''),
    );

  it('plan --target rabbitmq on a Kafka-only policy exits 2 and names the targets it has', async () => {
    const file = kafkaOnly();
    expect(readFileSync(file, 'utf8')).not.toContain('rabbitmq:');
    const result = await cli('plan', file, '--target', 'rabbitmq', '--format', 'json');
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toContain('policy "billing.order-placed" has no rabbitmq target (it has: kafka)');
  });

  it('plan of a directory with --target keeps the policies that have it, and says which it left out', async () => {
    const result = await cli('plan', 'policies', '--target', 'kafka', '--format', 'json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out).map((plan: { policy: string }) => plan.policy)).toEqual([
      'billing.order-placed',
      'shipping.order-paid',
    ]);
    expect(result.err).toContain('left out, without a kafka target: "shipping.label-printed"');
  });

  it.each(['plan', 'render', 'simulate'])(
    '%s on an empty directory says there is nothing, not "undefined" or "()"',
    async (command) => {
      const extra =
        command === 'render'
          ? ['--format', 'svg']
          : command === 'simulate'
            ? ['--outage', '1m', '--rate', '1/s']
            : [];
      const result = await cli(command, tree({}), ...extra);
      expect(result.code).toBe(1);
      expect(result.err).toContain('no policy files here');
      expect(result.err).not.toContain('undefined');
      expect(result.err).not.toContain('()');
    },
  );

  it('render of a file with several policies lists them to pick from', async () => {
    const result = await cli('render', 'policies/shipping.yaml', '--format', 'svg');
    expect(result.code).toBe(2);
    expect(result.err).toContain('pick one with --policy ("shipping.order-paid", "shipping.label-printed")');
  });
});

describe('machine-readable output, version, stdin and globs (item 15)', { timeout: SLOW_MS }, () => {
  it('validate --format json: every finding with file, line, column, path, code and severity', async () => {
    const file = tempPolicy(BILLING.replace('initial: 1s', 'initial: fast'));
    const result = await cli('validate', file, 'policies/shipping.yaml', '--format', 'json');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out);
    expect(report).toMatchObject({ tool: 'retry-topology', ok: false, summary: { files: 2, errors: 1 } });
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        file,
        line: 17,
        column: 14,
        path: ['spec', 'backoff', 'initial'],
        pathText: 'spec.backoff.initial',
        code: 'invalid-duration',
        severity: 'error',
        docs: 'docs/codes/invalid-duration.md',
      }),
    );
    for (const finding of report.findings) {
      expect(Object.keys(ISSUE_CODES)).toContain(finding.code);
      expect(finding.line).toBeGreaterThan(0);
      expect(finding.column).toBeGreaterThan(0);
    }
  });

  it('validate --format json: a policy with schema errors lists its rule findings too, in the same shape', async () => {
    const file = tempPolicy(
      BILLING.replace('      brokerVersion: "3.10.8"\n', '').replace('deadline: 30m', 'deadline: 5s'),
    );
    const result = await cli('validate', file, '--format', 'json');
    expect(result.code).toBe(1);
    const report = JSON.parse(result.out);
    expect(Object.keys(report)).toEqual(['tool', 'version', 'ok', 'summary', 'policies', 'findings']);
    // The policy is not in `policies`: it has no plan. Its findings are all there.
    expect(report).toMatchObject({ ok: false, summary: { files: 1, policies: 0, errors: 2 }, policies: [] });
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        file,
        path: ['spec', 'targets', 'rabbitmq', 'brokerVersion'],
        code: 'required',
        policy: null,
      }),
    );
    expect(report.findings).toContainEqual({
      file,
      line: 28,
      column: 13,
      path: ['spec', 'deadline'],
      pathText: 'spec.deadline',
      code: 'retry-window-exceeds-deadline',
      severity: 'error',
      message: 'the retry window (up to 7s) is longer than the deadline 5s',
      policy: 'billing.order-placed',
      acknowledged: null,
      docs: 'docs/codes/retry-window-exceeds-deadline.md',
    });
  });

  it('validate --format github: one workflow annotation per finding, on its line', async () => {
    const file = tempPolicy(BILLING.replace('initial: 1s', 'initial: fast'));
    const unreviewed = tempPolicy(BILLING_UNREVIEWED);
    const result = await cli('validate', file, unreviewed, '--format', 'github');
    expect(result.code).toBe(1);
    const lines = result.out.split('\n').filter((line) => line.startsWith('::'));
    expect(lines).toContain(
      `::error file=${file},line=17,col=14,title=retry-topology invalid-duration::spec.backoff.initial: expected a duration like "500ms" or "2s" (units ms, s, m, h, d), got "fast" [error invalid-duration]`,
    );
    // A warning is a warning annotation; an acknowledged one, a note, is a notice.
    const noJitter = (command: string, path: string) =>
      lines.some((line) => line.startsWith(`::${command} file=${path},`) && line.includes('no-jitter'));
    expect(noJitter('warning', unreviewed)).toBe(true);
    expect(noJitter('notice', file)).toBe(true);
  });

  it('a github annotation cannot be split into a second command', async () => {
    const key = 'x\n::error::forged';
    const file = tempPolicy(BILLING.replace('  jitter: none', `  jitter: none\n  ${JSON.stringify(key)}: 1`));
    const result = await cli('validate', file, '--format', 'github');
    expect(result.out.split('\n').filter((line) => line.includes('forged'))).toHaveLength(1);
    expect(result.out).not.toMatch(/^::error::forged/m);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
    const result = await cli('--version');
    expect(result.code).toBe(0);
    expect(result.out.trim()).toBe(version);
  });

  it('- reads a policy from standard input', async () => {
    const result = await cliWithStdin(BILLING.replace('initial: 1s', 'initial: fast'), 'validate', '-');
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/^✖ <stdin>:17:14 spec\.backoff\.initial: /m);
    const plan = await cliWithStdin(BILLING, 'plan', '-', '--format', 'json', '--target', 'kafka');
    expect(JSON.parse(plan.out).policy).toBe('billing.order-placed');
  });

  it('expands a glob itself, as where no shell does (npm scripts on Windows, quoted arguments)', async () => {
    const root = tree({ 'a/billing.yaml': BILLING, 'b/shipping.yaml': SHIPPING, 'b/notes.txt': 'x' });
    const result = await cli('validate', `${root}/**/*.yaml`);
    expect(result.code).toBe(0);
    expect(result.out).toContain('3 policies in 2 files valid');
    const none = await cli('validate', `${root}/**/*.json`);
    expect(none.code).toBe(1);
    expect(none.out).toContain('the pattern matches no file [error no-policy-files]');
  });

  it('the built bin reads standard input and prints its version', () => {
    const piped = spawnSync(process.execPath, ['dist/cli/main.js', 'validate', '-'], {
      input: BILLING,
      encoding: 'utf8',
    });
    expect(piped.status).toBe(0);
    expect(piped.stdout).toContain('1 policy in 1 file valid');
    const version = spawnSync(process.execPath, ['dist/cli/main.js', '--version'], { encoding: 'utf8' });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('simulate options (item 14)', { timeout: SLOW_MS }, () => {
  it('--seed -1 is a seed, not an unknown option', async () => {
    const result = await cli(
      'simulate',
      'policies/billing.yaml',
      '--outage',
      '1m',
      '--rate',
      '10/s',
      '--seed',
      '-1',
    );
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain('seed -1');
  });

  it('a rate too small for one message in the outage is refused, not shown as 0/s with dead letters', async () => {
    const result = await cli('simulate', 'policies/billing.yaml', '--outage', '10m', '--rate', '0.0000001/s');
    expect(result.code).toBe(2);
    expect(result.err).toContain('at 1e-7/s no message arrives during a 10m outage');
    expect(result.out).toBe('');
  });

  it('a small rate that does bring messages is shown with its digits', async () => {
    const result = await cli(
      'simulate',
      'policies/billing.yaml',
      '--outage',
      '10m',
      '--rate',
      '0.01/s',
      '--target',
      'kafka',
    );
    expect(result.code).toBe(0);
    expect(result.out).toContain('0.01/s');
    expect(result.out).toMatch(/messages in the outage\s+6\s/);
  });
});
