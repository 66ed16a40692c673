import { existsSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDocument, ISSUE_CODES, type IssueCode, loadPolicyFiles, loadPolicyText } from '../../policy';
import { MAX_FILE_BYTES } from '../../policy/load';
import { refusedSettingIssues } from '../../policy/rules/rabbitmq-settings';
import { changed, cleanPolicy, withChanges } from './fixtures';

type Path = ReadonlyArray<string | number>;
interface Case {
  code: IssueCode;
  document: unknown;
  path: Path;
}

const T = ['spec', 'targets'] as const;

/** One document per code that triggers it, with the path the finding must point at. */
const CASES: Case[] = [
  { code: 'required', document: changed(['spec', 'maxAttempts'], undefined), path: ['spec', 'maxAttempts'] },
  { code: 'unknown-key', document: changed(['spec', 'maxAttempt'], 3), path: ['spec', 'maxAttempt'] },
  { code: 'invalid-type', document: changed(['spec', 'maxAttempts'], 'four'), path: ['spec', 'maxAttempts'] },
  { code: 'invalid-value', document: changed(['spec', 'jitter'], 'ful'), path: ['spec', 'jitter'] },
  {
    code: 'invalid-duration',
    document: changed(['spec', 'backoff', 'initial'], 'fast'),
    path: ['spec', 'backoff', 'initial'],
  },
  {
    code: 'invalid-format',
    document: changed(['metadata', 'name'], 'Billing Orders'),
    path: ['metadata', 'name'],
  },
  { code: 'out-of-range', document: changed(['spec', 'maxAttempts'], 0), path: ['spec', 'maxAttempts'] },
  {
    code: 'delays-count-mismatch',
    document: changed(['spec', 'backoff'], { type: 'list', delays: ['1s', '2s'] }),
    path: ['spec', 'backoff', 'delays'],
  },
  {
    code: 'backoff-max-below-initial',
    document: changed(['spec', 'backoff', 'max'], '500ms'),
    path: ['spec', 'backoff', 'max'],
  },
  {
    code: 'retry-window-exceeds-ttl',
    document: changed(['spec', 'messageTtl'], '5s'),
    path: ['spec', 'messageTtl'],
  },
  {
    code: 'retry-window-exceeds-deadline',
    document: changed(['spec', 'deadline'], '5s'),
    path: ['spec', 'deadline'],
  },
  {
    code: 'amplification-over-budget',
    document: changed(
      ['spec', 'innerLayers'],
      [
        { name: 'http', attempts: 3 },
        { name: 'db', attempts: 3 },
      ],
    ),
    path: ['spec', 'maxAttempts'],
  },
  {
    code: 'in-memory-exceeds-lock',
    document: withChanges([
      [['spec', 'immediate'], { retries: 3, delay: '20s' }],
      [[...T, 'serviceBus', 'lockRenewal'], '0s'],
      [[...T, 'kafka'], undefined],
      [[...T, 'rabbitmq'], undefined],
    ]),
    path: ['spec', 'immediate'],
  },
  {
    code: 'in-memory-exceeds-poll-interval',
    document: withChanges([
      [['spec', 'immediate'], { retries: 2, delay: '10s' }],
      [[...T, 'kafka', 'maxPollInterval'], '30s'],
    ]),
    path: ['spec', 'immediate'],
  },
  {
    code: 'in-memory-exceeds-consumer-timeout',
    document: withChanges([
      [['spec', 'immediate'], { retries: 2, delay: '10s' }],
      [[...T, 'rabbitmq', 'consumerTimeout'], '30s'],
    ]),
    path: ['spec', 'immediate'],
  },
  {
    code: 'immediate-retries-long',
    document: changed(['spec', 'immediate'], { retries: 3, delay: '5s' }),
    path: ['spec', 'immediate'],
  },
  { code: 'no-jitter', document: changed(['spec', 'jitter'], 'none'), path: ['spec', 'jitter'] },
  { code: 'no-targets', document: changed(['spec', 'targets'], {}), path: ['spec', 'targets'] },
  {
    code: 'jitter-not-applied',
    document: withChanges([
      [[...T, 'rabbitmq', 'mode'], 'ttl-queues'],
      [[...T, 'rabbitmq', 'brokerVersion'], '3.13.7'],
    ]),
    path: [...T, 'rabbitmq', 'mode'],
  },
  {
    code: 'non-idempotent-retry',
    document: changed(['spec', 'idempotency'], { idempotent: false }),
    path: ['spec', 'idempotency', 'idempotent'],
  },
  {
    code: 'unknown-errors-transient',
    document: changed(['spec', 'classify', 'unknown'], 'transient'),
    path: ['spec', 'classify', 'unknown'],
  },
  {
    code: 'no-transient-rules',
    document: changed(['spec', 'classify', 'presets'], []),
    path: ['spec', 'classify'],
  },
  {
    code: 'ordering-not-kept',
    document: withChanges([
      [['spec', 'ordering'], 'per-key'],
      [[...T, 'kafka', 'ordering'], 'none'],
    ]),
    path: [...T, 'kafka', 'ordering'],
  },
  {
    code: 'broker-version-unsupported',
    document: changed([...T, 'rabbitmq', 'brokerVersion'], '3.9.29'),
    path: [...T, 'rabbitmq', 'brokerVersion'],
  },
  {
    code: 'mode-needs-newer-broker',
    document: changed([...T, 'rabbitmq', 'brokerVersion'], '4.3.0'),
    path: [...T, 'rabbitmq', 'mode'],
  },
  {
    code: 'delayed-retry-linear',
    document: withChanges([
      [[...T, 'rabbitmq', 'mode'], 'quorum-delayed-retry'],
      [['spec', 'jitter'], 'none'],
    ]),
    path: [...T, 'rabbitmq', 'mode'],
  },
  {
    code: 'at-least-once-needs-reject-publish',
    document: changed([...T, 'rabbitmq', 'overflow'], 'drop-head'),
    path: [...T, 'rabbitmq', 'overflow'],
  },
  {
    code: 'at-most-once-dead-lettering',
    document: changed([...T, 'rabbitmq', 'deadLetterStrategy'], 'at-most-once'),
    path: [...T, 'rabbitmq', 'deadLetterStrategy'],
  },
  {
    code: 'unbounded-wait-queue',
    document: withChanges([
      [[...T, 'rabbitmq', 'mode'], 'ttl-queues'],
      [['spec', 'jitter'], 'none'],
      [[...T, 'rabbitmq', 'waitQueueMaxLength'], 'unbounded'],
    ]),
    path: [...T, 'rabbitmq', 'waitQueueMaxLength'],
  },
  {
    code: 'delivery-limit-below-attempts',
    document: withChanges([
      [[...T, 'rabbitmq', 'mode'], 'quorum-delayed-retry'],
      [[...T, 'rabbitmq', 'deliveryLimit'], 2],
    ]),
    path: [...T, 'rabbitmq', 'deliveryLimit'],
  },
  {
    code: 'retention-below-delay',
    document: changed([...T, 'kafka', 'retryRetention'], '5s'),
    path: [...T, 'kafka', 'retryRetention'],
  },
  {
    code: 'min-insync-above-replication',
    document: changed([...T, 'kafka', 'minInSyncReplicas'], 4),
    path: [...T, 'kafka', 'minInSyncReplicas'],
  },
  {
    code: 'no-replication',
    document: withChanges([
      [['metadata', 'environment'], 'production'],
      [[...T, 'kafka', 'replicationFactor'], 1],
    ]),
    path: [...T, 'kafka', 'replicationFactor'],
  },
  {
    code: 'replicas-above-cluster',
    document: changed([...T, 'rabbitmq', 'clusterSize'], 1),
    path: [...T, 'rabbitmq', 'quorumReplicas'],
  },
  {
    code: 'quorum-replicas-even',
    document: changed([...T, 'rabbitmq', 'quorumReplicas'], 4),
    path: [...T, 'rabbitmq', 'quorumReplicas'],
  },
  {
    code: 'min-insync-equals-replication',
    document: changed([...T, 'kafka', 'minInSyncReplicas'], 3),
    path: [...T, 'kafka', 'minInSyncReplicas'],
  },
  {
    code: 'acks-below-all',
    document: changed([...T, 'kafka', 'acks'], 1),
    path: [...T, 'kafka', 'acks'],
  },
  {
    code: 'lock-duration-over-max',
    document: changed([...T, 'serviceBus', 'lockDuration'], '10m'),
    path: [...T, 'serviceBus', 'lockDuration'],
  },
  {
    code: 'name-invalid',
    document: changed([...T, 'rabbitmq', 'queue'], '12345'),
    path: [...T, 'rabbitmq', 'queue'],
  },
  {
    code: 'name-too-long',
    document: changed([...T, 'rabbitmq', 'queue'], `q${'x'.repeat(300)}`),
    path: [...T, 'rabbitmq', 'queue'],
  },
  {
    code: 'name-collision',
    document: changed([...T, 'rabbitmq', 'queue'], 'billing.order-placed.dlq'),
    path: ['metadata', 'name'],
  },
  {
    code: 'transient-client-error',
    document: changed(['spec', 'classify', 'transient'], { httpStatuses: [503, 409] }),
    path: ['spec', 'classify', 'transient', 'httpStatuses', 1],
  },
  {
    code: 'acknowledgement-unused',
    document: changed(['spec', 'acknowledge'], [{ code: 'no-jitter', reason: 'fixed waits on purpose' }]),
    path: ['spec', 'acknowledge', 0, 'code'],
  },
];

/** Codes that belong to a file, its YAML text or a set of files rather than to one document. */
const FILE_CODES: IssueCode[] = [
  'file-unreadable',
  'yaml-syntax',
  'unsupported-tag',
  'no-policy',
  'duplicate-policy-name',
  'file-too-large',
  'invalid-encoding',
  'not-a-policy',
  'no-policy-files',
];
/** Codes no valid document reaches while the planner is right: they guard the plan itself, and
 * their tests feed the check the plan a planner bug once wrote. */
const PLAN_GUARD_CODES: IssueCode[] = ['broker-refuses-setting'];

describe('the clean fixture', () => {
  it('has no findings at all, so each case below isolates its code', () => {
    expect(checkDocument(cleanPolicy()).issues).toEqual([]);
  });
});

describe.each(CASES)('$code', ({ code, document, path }) => {
  it(`is reported at ${path.join('.')}`, () => {
    const { issues } = checkDocument(document);
    const found = issues.filter((each) => each.code === code);
    expect(found.map((each) => each.path)).toContainEqual(path);
    expect(found[0]?.severity).toBe(ISSUE_CODES[code]);
  });
});

describe('file-level codes', () => {
  it('yaml-syntax: a broken document, with its line', () => {
    const { issues } = loadPolicyText('apiVersion: retry-topology/v1\nkind: [RetryPolicy\n', 'broken.yaml');
    expect(issues[0]).toMatchObject({ code: 'yaml-syntax', file: 'broken.yaml' });
    expect(issues[0]?.line).toBeGreaterThanOrEqual(2);
  });

  it('yaml-syntax: a duplicated key', () => {
    const { issues } = loadPolicyText('kind: RetryPolicy\nkind: RetryPolicy\n', 'dup.yaml');
    expect(issues.map((each) => each.code)).toContain('yaml-syntax');
  });

  it('unsupported-tag: a tag the core schema lacks is an error at its value, not dropped', () => {
    const billing = readFileSync('policies/billing.yaml', 'utf8');
    const text = billing
      .replace(
        'description: Charge the customer for a placed order.',
        'description: !!js/function "function () {}"',
      )
      .replace('consumer: billing', 'consumer: !local x')
      .replace('owner: team-billing', 'owner: !!timestamp 2026-01-01');
    const lines = text.split('\n');
    /** Where `value` is on the line holding `line`. */
    const at = (line: string, value: string) => {
      const index = lines.findIndex((each) => each.includes(line));
      return { line: index + 1, column: (lines[index] ?? '').indexOf(value) + 1 };
    };
    const { issues } = loadPolicyText(text, 'tags.yaml');
    expect(issues.filter((each) => each.code === 'unsupported-tag')).toEqual([
      {
        code: 'unsupported-tag',
        severity: 'error',
        path: ['metadata', 'description'],
        message: expect.stringMatching(/^the YAML tag !!js\/function is not supported /),
        file: 'tags.yaml',
        ...at('description: !!js/function', '"function () {}"'),
      },
      expect.objectContaining({
        path: ['metadata', 'owner'],
        message: expect.stringContaining('!!timestamp'),
        ...at('owner: !!timestamp', '2026-01-01'),
      }),
      expect.objectContaining({
        path: ['spec', 'consumer'],
        message: expect.stringContaining('!local'),
        ...at('consumer: !local x', 'x'),
      }),
    ]);
  });

  it("unsupported-tag: the core schema's tags only say how to read a value, and are allowed", () => {
    const billing = readFileSync('policies/billing.yaml', 'utf8');
    const text = billing
      .replace('maxAttempts: 4', 'maxAttempts: !!int "4"')
      .replace('consumer: billing', 'consumer: !!str billing')
      .replace('  idempotency:\n', '  idempotency: !!map\n');
    const { issues, policies } = loadPolicyText(text, 'core.yaml');
    expect(issues.filter((each) => each.severity === 'error')).toEqual([]);
    expect(policies[0]?.policy).toMatchObject({ maxAttempts: 4, consumer: 'billing' });
  });

  it('unsupported-tag: a YAML file found beside the policies that is not one may use any tag', async () => {
    const { issues } = await loadPolicyFiles([
      { file: 'template.yaml', content: 'Resources:\n  Queue:\n    Name: !Ref QueueName\n', found: true },
    ]);
    expect(issues.map((each) => each.code)).toEqual(['not-a-policy']);
  });

  it('no-policy: an empty file', () => {
    expect(loadPolicyText('# nothing here\n', 'empty.yaml').issues.map((each) => each.code)).toEqual([
      'no-policy',
    ]);
  });

  it('no-policy: a named YAML document that is not a policy is one finding, not one per key', async () => {
    const { issues, policies } = await loadPolicyFiles([
      { file: 'Pulumi.yaml', content: 'name: shop\nruntime: nodejs\ndescription: the shop\n' },
      { file: 'deployment.yaml', content: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: x }\n' },
      { file: 'list.yaml', content: '- a\n- b\n' },
    ]);
    expect(policies).toEqual([]);
    expect(
      issues.map(({ code, severity, file, line, column, path }) => ({
        code,
        severity,
        file,
        line,
        column,
        path,
      })),
    ).toEqual(
      ['Pulumi.yaml', 'deployment.yaml', 'list.yaml'].map((file) => ({
        code: 'no-policy',
        severity: 'error',
        file,
        line: 1,
        column: 1,
        path: [],
      })),
    );
  });

  it('no-policy: in a file of several documents, the one that is not a policy, at its line', () => {
    const text = `${readFileSync('policies/billing.yaml', 'utf8')}---\nname: shop\nruntime: nodejs\n`;
    const { issues, policies } = loadPolicyText(text, 'two.yaml');
    expect(policies).toHaveLength(1);
    const line = text.split('\n').indexOf('name: shop') + 1;
    expect(issues.filter((each) => each.severity === 'error')).toMatchObject([
      {
        code: 'no-policy',
        line,
        message: expect.stringContaining('this YAML document is not a retry policy'),
      },
    ]);
  });

  it('a document whose kind or apiVersion is ours is a policy, however broken: every finding', () => {
    for (const head of ['kind: RetryPolicy\n', 'apiVersion: retry-topology/v2\n']) {
      const codes = loadPolicyText(`${head}name: shop\n`, 'x.yaml').issues.map((each) => each.code);
      expect(codes).toContain('required');
      expect(codes).toContain('unknown-key');
      expect(codes).not.toContain('no-policy');
    }
  });

  it('file-unreadable: a missing file', async () => {
    const { issues } = await loadPolicyFiles(['does/not/exist.yaml']);
    expect(issues).toMatchObject([{ code: 'file-unreadable', file: 'does/not/exist.yaml' }]);
  });

  it("duplicate-policy-name: the same name in two files, at the second one's metadata.name", async () => {
    const text = readFileSync('policies/billing.yaml', 'utf8');
    const { issues } = await loadPolicyFiles([
      { file: 'a.yaml', content: text },
      { file: 'b.yaml', content: `# a copy\n\n${text}` },
    ]);
    const duplicate = issues.filter((each) => each.code === 'duplicate-policy-name');
    expect(duplicate).toHaveLength(1);
    expect(duplicate[0]).toMatchObject({ path: ['metadata', 'name'], file: 'b.yaml', line: 11, column: 9 });
    expect(duplicate[0]?.message).toContain('already defined at a.yaml:');
  });

  it('a file named twice is read once: no duplicate with itself', async () => {
    const { issues, policies } = await loadPolicyFiles(['policies/billing.yaml', './policies/billing.yaml']);
    expect(policies).toHaveLength(1);
    expect(issues.map((each) => each.code)).not.toContain('duplicate-policy-name');
  });

  it('file-too-large: a file over the limit, without reading it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rt-codes-'));
    const file = join(dir, 'big.yaml');
    writeFileSync(file, '');
    truncateSync(file, MAX_FILE_BYTES + 1);
    const { issues } = await loadPolicyFiles([file]);
    expect(issues).toMatchObject([{ code: 'file-too-large', file, line: 1, column: 1 }]);
  });

  it('file-too-large: exactly 4 MiB is read; one byte more is refused, and the message shows it is larger', async () => {
    const billing = readFileSync('policies/billing.yaml', 'utf8');
    const comment = `# ${'x'.repeat(97)}\n`;
    const room = MAX_FILE_BYTES - Buffer.byteLength(billing);
    const padding = comment.repeat(Math.floor(room / comment.length));
    const exact = `${billing}${padding}${'#'.padEnd(room - padding.length - 1, ' ')}\n`;
    expect(Buffer.byteLength(exact)).toBe(MAX_FILE_BYTES);
    const dir = mkdtempSync(join(tmpdir(), 'rt-codes-'));
    const [atLimit, over] = [join(dir, 'exact.yaml'), join(dir, 'over.yaml')];
    writeFileSync(atLimit, exact);
    writeFileSync(over, `${exact}#`);
    for (const input of [atLimit, { file: 'exact.yaml', content: Buffer.from(exact) }]) {
      const read = await loadPolicyFiles([input]);
      expect(read.issues.map((each) => each.code)).not.toContain('file-too-large');
      expect(read.policies).toHaveLength(1);
    }
    for (const input of [over, { file: 'over.yaml', content: Buffer.from(`${exact}#`) }]) {
      const { issues } = await loadPolicyFiles([input]);
      expect(issues).toMatchObject([{ code: 'file-too-large' }]);
      expect(issues[0]?.message).toMatch(
        /^the (file|input) is 4,194,305 bytes, over the 4,194,304 bytes \(4 MiB\) a policy file may have$/,
      );
    }
  });

  it('invalid-encoding: a Latin-1 byte, located', async () => {
    const bytes = Buffer.concat([
      Buffer.from('apiVersion: retry-topology/v1\nkind: Retry'),
      Buffer.from([0xe9]),
    ]);
    const { issues } = await loadPolicyFiles([{ file: 'latin1.yaml', content: bytes }]);
    expect(issues).toMatchObject([
      { code: 'invalid-encoding', file: 'latin1.yaml', line: 2, column: 12, path: [] },
    ]);
  });

  it('not-a-policy: a YAML file found beside the policies is skipped with a note', async () => {
    const { issues, policies } = await loadPolicyFiles([
      { file: 'Pulumi.yaml', content: 'name: shop\nruntime: nodejs\n', found: true },
    ]);
    expect(policies).toEqual([]);
    expect(issues).toMatchObject([{ code: 'not-a-policy', severity: 'note', file: 'Pulumi.yaml', line: 1 }]);
  });

  // no-policy-files belongs to the command line's inputs: test/cli/gate-inputs.test.ts.
});

describe('plan guard codes', () => {
  it('broker-refuses-setting: the delayed-retry settings a one-attempt plan once wrote', () => {
    const found = refusedSettingIssues([
      {
        name: 'billing.order-placed',
        definition: { 'delayed-retry-type': 'failed', 'delayed-retry-min': 0, 'delayed-retry-max': 0 },
      },
    ]);
    expect(found.map((each) => [each.code, each.path.join('.')])).toEqual([
      ['broker-refuses-setting', 'spec.backoff'],
      ['broker-refuses-setting', 'spec.backoff'],
    ]);
  });
});

describe('the code registry', () => {
  it('has a test case for every code', () => {
    const tested = new Set<string>([...CASES.map((each) => each.code), ...FILE_CODES, ...PLAN_GUARD_CODES]);
    expect(Object.keys(ISSUE_CODES).filter((code) => !tested.has(code))).toEqual([]);
  });

  it('has a documentation page for every code', () => {
    const missing = Object.keys(ISSUE_CODES).filter(
      (code) => !existsSync(join('docs', 'codes', `${code}.md`)),
    );
    expect(missing).toEqual([]);
  });
});
