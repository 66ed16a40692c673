import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ISSUE_CODES } from '../../policy';
import { changed, cleanPolicy } from '../policy/fixtures';
import { BILLING, cli } from './cli-harness';
import { liveMarkdown, rawControls, xmlProblem } from './inert';

/**
 * Hostile policy files through validate, plan, diff and render: control characters, markup,
 * bytes that are not text, sizes, collisions. Whatever the input: no crash (exit 0, 1 or 2,
 * never "internal error"), no raw control character in any output, no live Markdown in a
 * comment, well-formed SVG, and every finding coded (with its page in docs/codes/) and located.
 */

const HOSTILE = [
  '\u001b]0;pwned\u0007\u001b[31mred',
  '\u009b31m',
  'a\u0000b',
  'left\u202eright\u2066x\u2069',
  'line\u2028break\u2029para',
  '[click](https://evil.example) <img src=x onerror=alert(1)> @someone #1 GH-2',
  '``` `code` ``',
  '<details><summary>x</summary>',
  '<!-- hidden -->',
  'www.evil.example user@evil.example',
  '\ufeffbom\ufffe\uffff',
  'x'.repeat(10_000),
  '%0A::error::forged\n::warning::forged',
  '😀\ud83d',
];

/** String fields of a policy where free text is accepted (or refused with a finding). */
const FIELDS: Array<Array<string | number>> = [
  ['metadata', 'name'],
  ['metadata', 'description'],
  ['spec', 'consumer'],
  ['spec', 'classify', 'transient', 'errorNames'],
  ['spec', 'classify', 'permanent', 'errorCodes'],
  ['spec', 'idempotency', 'key'],
  ['spec', 'innerLayers', 0, 'name'],
  ['spec', 'targets', 'rabbitmq', 'routingKey'],
  ['spec', 'targets', 'rabbitmq', 'vhost'],
  ['spec', 'targets', 'rabbitmq', 'queue'],
  ['spec', 'targets', 'kafka', 'consumerGroup'],
  ['spec', 'targets', 'serviceBus', 'queue'],
  ['spec', 'deadLetter', 'name'],
  ['spec', 'backoff', 'initial'],
  ['spec', 'jitter'],
];

function hostileDoc(field: Array<string | number>, text: string): unknown {
  const list = field[field.length - 1] === 'errorNames' || field[field.length - 1] === 'errorCodes';
  return changed(field, list ? [text] : text, cleanPolicy());
}

/** Byte-level and size-level inputs, as files. */
function hostileFiles(dir: string): string[] {
  const files: Array<[string, Uint8Array | string]> = [
    ['latin1.yaml', Buffer.from(stringify(changed(['spec', 'consumer'], 'café', cleanPolicy())), 'latin1')],
    ['utf16.yaml', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(BILLING, 'utf16le')])],
    ['binary.yaml', Buffer.from(Array.from({ length: 50_000 }, (_, index) => (index * 131) % 256))],
    ['raw-escape.yaml', BILLING.replace('consumer: billing', 'consumer: bil\u001b[2Jling')],
    ['raw-nul.yaml', BILLING.replace('consumer: billing', 'consumer: bil\u0000ling')],
    ['huge-key.yaml', BILLING.replace('  jitter: none', `  jitter: none\n  ${'k'.repeat(100_000)}: 1`)],
    ['many-docs.yaml', Array.from({ length: 300 }, (_, index) => `name: doc${index}\n`).join('---\n')],
    ['deep.yaml', `${'['.repeat(2_000)}${']'.repeat(2_000)}\n`],
    [
      'bomb.yaml',
      `a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n`,
    ],
    ['syntax.yaml', 'apiVersion: [\n  - {\n : : :\n'],
    [
      'collide-a.yaml',
      stringify(
        changed(
          ['spec', 'targets', 'rabbitmq', 'queue'],
          'collide-b',
          changed(['metadata', 'name'], 'collide-a', cleanPolicy()),
        ),
      ),
    ],
    [
      'collide-b.yaml',
      stringify(
        changed(
          ['spec', 'targets', 'kafka', 'consumerGroup'],
          'other',
          changed(
            ['metadata', 'name'],
            'collide-b',
            changed(['spec', 'targets', 'rabbitmq', 'queue'], undefined, cleanPolicy()),
          ),
        ),
      ),
    ],
    ['kafka-metric.yaml', stringify(changed(['metadata', 'name'], 'billing_order-placed', cleanPolicy()))],
    [
      '[x](https:evil.example) @team \u001b[31m.yaml',
      stringify(changed(['spec', 'consumer'], '<b>x</b>', cleanPolicy())),
    ],
  ];
  return files.map(([name, content]) => {
    const file = join(dir, name);
    writeFileSync(file, content);
    return file;
  });
}

type Run = { argv: string[]; kind: 'text' | 'json' | 'markdown' | 'svg' | 'github' };

/** Every command and format; `quick` keeps one of each kind, for the many small cases. */
async function checkAll(file: string, dir: string, quick = false): Promise<void> {
  const all: Run[] = [
    { argv: ['validate', file], kind: 'text' },
    { argv: ['validate', file, '--format', 'json'], kind: 'json' },
    { argv: ['validate', file, '--format', 'github'], kind: 'github' },
    { argv: ['plan', file], kind: 'text' },
    { argv: ['plan', file, '--format', 'json'], kind: 'json' },
    { argv: ['plan', file, '--format', 'markdown'], kind: 'markdown' },
    { argv: ['diff', 'policies/billing.yaml', file], kind: 'markdown' },
    { argv: ['diff', file, 'policies/billing.yaml'], kind: 'markdown' },
    { argv: ['diff', dir, 'policies'], kind: 'markdown' },
    { argv: ['render', file, '--format', 'svg'], kind: 'svg' },
    {
      argv: ['render', file, '--format', 'svg', '--view', 'topology', '--target', 'servicebus'],
      kind: 'svg',
    },
    { argv: ['render', file, '--format', 'mermaid', '--view', 'topology'], kind: 'text' },
  ];
  const QUICK = [0, 1, 2, 5, 6, 9, 11];
  const runs = quick ? all.filter((_, index) => QUICK.includes(index)) : all;
  for (const { argv, kind } of runs) {
    const result = await cli(...argv);
    const what = `${argv.join(' ').slice(0, 200)}`;
    expect([0, 1, 2], `${what}: ${result.err.slice(0, 500)}`).toContain(result.code);
    expect(result.err, what).not.toContain('internal error');
    expect(rawControls(result.out), `${what} stdout`).toEqual([]);
    expect(rawControls(result.err), `${what} stderr`).toEqual([]);
    if (kind === 'markdown' && result.out) expect(liveMarkdown(result.out), what).toEqual([]);
    if (kind === 'svg' && result.code === 0) expect(xmlProblem(result.out), what).toBeUndefined();
    if (kind === 'json' && result.code !== 2 && argv[0] === 'validate')
      checkFindings(JSON.parse(result.out), what);
    if (kind === 'github') {
      for (const line of result.out.split('\n').filter(Boolean))
        expect(line, what).toMatch(
          /^(::(error|warning|notice) file=[^,]+(,line=\d+,col=\d+)?,title=retry-topology [a-z-]+::|[✔✖] )/,
        );
    }
  }
}

function checkFindings(report: { findings: Array<Record<string, unknown>> }, what: string): void {
  for (const finding of report.findings) {
    const code = String(finding.code);
    expect(Object.keys(ISSUE_CODES), what).toContain(code);
    expect(existsSync(join('docs', 'codes', `${code}.md`)), `${code} has a page`).toBe(true);
    expect(typeof finding.file, `${what}: ${code} has a file`).toBe('string');
    expect(finding.line, `${what}: ${code} has a line`).toBeGreaterThan(0);
    expect(finding.column, `${what}: ${code} has a column`).toBeGreaterThan(0);
  }
}

describe('an adversarial corpus through validate, plan, diff and render', () => {
  it('files made of bytes, sizes and collisions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rt-adversarial-'));
    for (const file of hostileFiles(dir)) await checkAll(file, dir);
  }, 300_000);

  it.each(FIELDS.map((field) => [field.join('.'), field]))(
    'hostile text in %s',
    async (_name, field) => {
      const dir = mkdtempSync(join(tmpdir(), 'rt-hostile-'));
      const file = join(dir, 'hostile.yaml');
      for (const text of HOSTILE) {
        writeFileSync(file, stringify(hostileDoc(field as Array<string | number>, text)));
        await checkAll(file, dir, true);
      }
    },
    300_000,
  );

  it('random hostile strings in random fields and keys', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rt-random-'));
    const file = join(dir, 'random.yaml');
    const hostileChar = fc.oneof(
      fc.constantFrom(
        '\u001b',
        '\u0007',
        '\u009b',
        '\u202e',
        '\u2028',
        '`',
        '<',
        '>',
        '&',
        '@',
        '[',
        ']',
        '(',
        ')',
        '|',
        '\n',
        '"',
        "'",
        ':',
        '#',
        '\\',
        '%',
        ',',
      ),
      fc.string({ unit: 'binary', maxLength: 3 }),
    );
    const hostile = fc.array(hostileChar, { minLength: 1, maxLength: 40 }).map((parts) => parts.join(''));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...FIELDS), hostile, hostile, async (field, text, key) => {
        const doc = changed(['spec', key], 1, hostileDoc(field, text) as Record<string, unknown>);
        writeFileSync(file, stringify(doc));
        await checkAll(file, dir, true);
      }),
      { numRuns: 25 },
    );
  }, 300_000);
});
