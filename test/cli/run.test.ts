import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../cli/run';
import { unreviewed } from './cli-harness';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join(''), err: err.join('') };
}

function tempPolicy(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'rt-cli-'));
  const file = join(dir, 'policy.yaml');
  writeFileSync(file, text);
  return file;
}

const BILLING = readFileSync('policies/billing.yaml', 'utf8');
const UNREVIEWED = unreviewed(BILLING);

describe('retry-topology validate', () => {
  it('accepts the example policies, --strict too: what `npm start` shows has no warning', async () => {
    for (const strict of [[], ['--strict']]) {
      const result = await cli('validate', ...strict, 'policies');
      expect(result.code).toBe(0);
      // Billing's fixed waits are reviewed: a note that carries the reason.
      const lines = result.out.split('\n');
      expect(lines[0]).toMatch(
        /^ℹ policies\/billing\.yaml:21:11 spec\.jitter: .*; acknowledged: ".*" \[note no-jitter\]$/,
      );
      expect(lines.at(-1)).toBe('✔ 3 policies in 2 files valid (0 errors, 0 warnings, 1 note)');
    }
  });

  it.each([
    ['valid, with a warning', 'UNREVIEWED', 0, /^✔ 1 policy in 1 file valid \(0 errors, 1 warning\)$/],
    // The rules still run beside the schema error: the broken backoff does not hide no-jitter.
    ['with an error', 'BROKEN', 1, /^✖ 0 policies in 1 file: 1 error, 1 warning$/],
  ])(
    'prints the findings and then the summary on stdout, nothing on stderr (%s), so grep sees them',
    async (_name, input, code, last) => {
      const file = tempPolicy(
        input === 'BROKEN' ? UNREVIEWED.replace('initial: 1s', 'initial: fast') : UNREVIEWED,
      );
      const result = await cli('validate', file);
      expect(result.code).toBe(code);
      expect(result.err).toBe('');
      const lines = result.out.split('\n');
      expect(lines.at(-1)).toMatch(last);
      expect(
        lines
          .slice(0, -1)
          .every((line) => /^[✖⚠ℹ] .*:\d+:\d+ .*\[(error|warning|note) [a-z-]+\]$/.test(line)),
      ).toBe(true);
      expect(lines.some((line) => line.includes('[warning no-jitter]'))).toBe(true);
    },
  );

  it('fails on warnings with --strict', async () => {
    expect((await cli('validate', '--strict', tempPolicy(UNREVIEWED))).code).toBe(1);
  });

  it.each([
    [
      'a broken duration',
      BILLING.replace('initial: 1s', 'initial: fast'),
      'spec.backoff.initial',
      'invalid-duration',
    ],
    ['a removed required field', BILLING.replace('  consumer: billing\n', ''), 'spec.consumer', 'required'],
    [
      'an unknown key',
      BILLING.replace('  jitter: none', '  jitter: none\n  retries: 3'),
      'spec.retries',
      'unknown-key',
    ],
  ])('exits 1 on %s, naming file:line and the path', async (_name, text, path, code) => {
    const file = tempPolicy(text);
    const result = await cli('validate', file);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(
      new RegExp(
        `${file.replace(/[.]/g, '\\.')}:\\d+:\\d+ ${path.replace('.', '\\.')}: .*\\[error ${code}\\]`,
      ),
    );
  });

  it('reports a missing file without a stack trace', async () => {
    const result = await cli('validate', 'nope.yaml');
    expect(result.code).toBe(1);
    expect(result.out).toContain('nope.yaml');
    expect(result.out).not.toMatch(/\n\s+at /);
  });
});

describe('retry-topology plan', () => {
  it('prints the plan as JSON', async () => {
    const result = await cli('plan', 'policies/billing.yaml', '--format', 'json');
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.out);
    expect(plan.policy).toBe('billing.order-placed');
    expect(plan.targets.rabbitmq.levels.map((level: { delayMs: number }) => level.delayMs)).toEqual([
      1000, 2000, 4000,
    ]);
  });

  it('narrows to one target', async () => {
    const plan = JSON.parse(
      (await cli('plan', 'policies/billing.yaml', '--format', 'json', '--target', 'kafka')).out,
    );
    expect(Object.keys(plan.targets)).toEqual(['kafka']);
  });

  it('prints a readable timeline', async () => {
    const result = await cli('plan', 'policies/billing.yaml', '--target', 'rabbitmq');
    expect(result.out).toMatch(/4\s+4s\s+7s\s+billing\.order-placed\.retry\.3/);
    expect(result.out).toContain('dead letter → billing.order-placed.dlq');
  });

  it('says a Kafka target with acks 0 confirms nothing, and with acks 1 on the leader alone', async () => {
    const replication = async (acks: string) => {
      const text = BILLING.replace(
        '      replicationFactor: 1\n',
        `      replicationFactor: 3\n      acks: ${acks}\n`,
      );
      const result = await cli('plan', tempPolicy(text), '--target', 'kafka');
      return result.out.split('\n').find((line) => line.includes('replication: factor')) ?? '';
    };
    expect(await replication('0')).toMatch(
      /acks 0: no message is confirmed \(the producer does not wait for the broker\), so one can be lost with no node lost; writes go on with 2 nodes down$/,
    );
    expect(await replication('1')).toMatch(/acks 1: a confirmed message is on 1 and survives 0 nodes lost/);
  });

  it('prints Markdown', async () => {
    const result = await cli('plan', 'policies/billing.yaml', '--format', 'markdown');
    expect(result.out).toContain('| attempt | wait | window | via |');
  });

  it('refuses a plan for an invalid policy with exit 1', async () => {
    const result = await cli('plan', tempPolicy(BILLING.replace('deadline: 30m', 'deadline: 2s')));
    expect(result.code).toBe(1);
    expect(result.err).toContain('[error retry-window-exceeds-deadline]');
  });
});

describe('the command line itself', () => {
  it.each([
    [['frobnicate'], 2],
    [['plan'], 2],
    [['plan', 'policies/billing.yaml', '--format', 'yaml'], 2],
    [['plan', 'policies/billing.yaml', '--bogus'], 2],
    [['validate', '--help'], 0],
  ])('%j exits %i without a stack trace', async (argv, code) => {
    const result = await cli(...argv);
    expect(result.code).toBe(code);
    expect(result.err).not.toMatch(/\n\s+at /);
  });

  it.each([
    [['plan', 'policies/billing.yaml', '--policy'], '-x'],
    [['simulate', 'policies/billing.yaml', '--rate', '5/s', '--outage'], '-5m'],
    [['simulate', 'policies/billing.yaml', '--outage', '1m', '--rate'], '-5/s'],
    [['simulate', 'policies/billing.yaml', '--outage', '1m', '--rate', '5/s', '--format'], '-x'],
    [['render', 'policies/billing.yaml', '--format', 'svg', '--target'], '-k'],
    [['diff', 'policies/billing.yaml', 'policies/billing.yaml', '--max-chars'], '-5'],
  ])('%j with a value starting with a dash as the next word says what "=%s" says', async (argv, value) => {
    const option = argv.at(-1) as string;
    const spaced = await cli(...argv, value);
    const joined = await cli(...argv.slice(0, -1), `${option}=${value}`);
    expect(spaced.code).toBe(2);
    expect(spaced).toEqual(joined);
    expect(spaced.err).not.toContain('ambiguous');
  });

  it('an option missing its value before the next option is one line, exit 2', async () => {
    const result = await cli('plan', 'policies/billing.yaml', '--policy', '--format', 'json');
    expect(result.code).toBe(2);
    expect(result.err.split('\n')).toEqual([
      '✖ --policy needs a value before --format',
      '  retry-topology plan --help shows every option',
    ]);
  });

  it('schema refuses an unknown option with exit 2 and the message every command gives', async () => {
    const schema = await cli('schema', '--no-such-option');
    const plan = await cli('plan', 'policies/billing.yaml', '--no-such-option');
    expect(schema.code).toBe(2);
    expect(schema.out).toBe('');
    expect(schema.err.split('\n')[0]).toBe('✖ unknown option --no-such-option');
    expect(schema.err.split('\n')[0]).toBe(plan.err.split('\n')[0]);
    expect(schema.err).toContain('retry-topology schema --help');
  });

  it('schema refuses an extra argument with exit 2, naming it', async () => {
    const result = await cli('schema', 'extra-arg');
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err.split('\n')[0]).toBe('✖ schema takes no argument, got "extra-arg"');
    expect(result.err).toContain('retry-topology schema --help');
  });

  it('prints the JSON Schema', async () => {
    const result = await cli('schema');
    expect(JSON.parse(result.out).$schema).toContain('draft-07');
  });
});

describe('usage errors, help and version, as linters give them', () => {
  it.each([
    [
      ['validate', 'policies/billing.yaml', '--format', 'xml'],
      '✖ --format "xml" is not one of text, json, github',
      'validate',
    ],
    [
      ['plan', 'policies/billing.yaml', '--format', 'yaml'],
      '✖ --format "yaml" is not one of text, json, markdown',
      'plan',
    ],
    [
      ['render', 'policies/billing.yaml', '--format', 'svg', '--view', 'sideways'],
      '✖ --view "sideways" is not one of timeline, topology',
      'render',
    ],
    [['render', 'policies/billing.yaml'], '✖ --format is needed: mermaid or svg', 'render'],
    [
      ['diff', 'policies', 'policies', '--max-chars', '10'],
      '✖ --max-chars "10" is not a whole number of at least 2000',
      'diff',
    ],
    [['validate'], '✖ missing a policy file, directory, glob or -', 'validate'],
    [
      ['plan', 'policies/billing.yaml', 'policies/billing.yaml'],
      '✖ one policy file, directory, glob or - only, got 2: "policies/billing.yaml" "policies/billing.yaml"',
      'plan',
    ],
    [['validate', '--bogus', 'policies/billing.yaml'], '✖ unknown option --bogus', 'validate'],
  ])(
    '%j: one line naming the option and what it takes, then where the options are; exit 2',
    async (argv, line, command) => {
      const result = await cli(...argv);
      expect(result.code).toBe(2);
      expect(result.out).toBe('');
      expect(result.err.split('\n')).toEqual([line, `  retry-topology ${command} --help shows every option`]);
    },
  );

  it('-v, -V and --version print the version', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['-v', '-V', '--version'])
      expect(await cli(flag)).toEqual({ code: 0, out: version, err: '' });
  });

  it('--help lists every command with a line each, and a link; <command> --help gives its details', async () => {
    const help = await cli('--help');
    expect(help.code).toBe(0);
    for (const command of ['validate', 'plan', 'schema', 'diff', 'render', 'simulate', 'dead-letters'])
      expect(help.out).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    expect(help.out).toContain('https://github.com/retry-topology/retry-topology#readme');
    expect(help.out.split('\n').length).toBeLessThan(20);
    const validate = await cli('validate', '--help');
    expect(validate.out).toContain('--format github: workflow annotations');
  });
});
