import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BILLING, cli, tempPolicy } from './cli-harness';
import { codeTexts, liveMarkdown, rawControls, xmlProblem } from './inert';

/** Each test runs the CLI several times; a loaded 2-core machine can take seconds for each. */
const SLOW_MS = 60_000;

/**
 * What a policy holds cannot act in the outputs: no live Markdown in a pull-request comment, no
 * terminal control sequence in validate, no invalid XML in an SVG, and a comment that fits.
 */

const MARKUP = '[click](https://evil.example) <img src=x> @someone';
const TERMINAL = '\u001b]0;pwned\u0007\u001b[31m';

/** YAML for a double-quoted scalar: JSON's escapes are YAML's. */
const quoted = (text: string) => JSON.stringify(text);

describe('pull-request Markdown (diff) is inert', { timeout: SLOW_MS }, () => {
  it('a key, an error name and a consumer full of markup are code, not links, HTML or mentions', async () => {
    const hostile = BILLING.replace(
      '      errorNames: [InvalidCurrencyError]',
      `      errorNames: [InvalidCurrencyError, ${quoted(MARKUP)}]`,
    )
      .replace('  consumer: billing', `  consumer: ${quoted(`billing ${MARKUP}`)}`)
      .replace('  jitter: none', `  jitter: none\n  ${quoted(MARKUP)}: 1`);
    const result = await cli('diff', 'policies/billing.yaml', tempPolicy(hostile));
    expect(result.out).toContain('unknown key');
    expect(liveMarkdown(result.out)).toEqual([]);
    // The hostile text is there, whole, inside code spans.
    expect(codeTexts(result.out).some((text) => text.includes(MARKUP))).toBe(true);
  });

  it('backticks in a value cannot close its code span', async () => {
    const hostile = BILLING.replace(
      '      errorNames: [InvalidCurrencyError]',
      `      errorNames: [${quoted('a ``` b ` [x](https://evil.example) `')}]`,
    );
    const result = await cli('diff', 'policies/billing.yaml', tempPolicy(hostile));
    expect(liveMarkdown(result.out)).toEqual([]);
    expect(codeTexts(result.out).some((text) => text.includes('a ``` b ` [x](https://evil.example) `'))).toBe(
      true,
    );
  });

  it('a file name with markup is code too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rt-md-'));
    const file = join(dir, '[x](https:evil.example) @team.yaml');
    writeFileSync(file, BILLING.replace('messageTtl: 1h', 'messageTtl: 5s'));
    const result = await cli('diff', 'policies/billing.yaml', file);
    expect(result.out).toContain('retry-window-exceeds-ttl');
    expect(liveMarkdown(result.out)).toEqual([]);
  });

  it('plan --format markdown is inert as well', async () => {
    const hostile = BILLING.replace('  consumer: billing', `  consumer: ${quoted(MARKUP)}`).replace(
      '      errorNames: [InvalidCurrencyError]',
      `      errorNames: [${quoted(MARKUP)}]`,
    );
    const result = await cli('plan', tempPolicy(hostile), '--format', 'markdown');
    expect(result.code).toBe(0);
    expect(liveMarkdown(result.out)).toEqual([]);
  });
});

describe('human output escapes control characters', { timeout: SLOW_MS }, () => {
  it('an unknown key with terminal escapes is printed as escapes by validate', async () => {
    const file = tempPolicy(BILLING.replace('  jitter: none', `  jitter: none\n  ${quoted(TERMINAL)}: 1`));
    const result = await cli('validate', file);
    expect(result.code).toBe(1);
    expect(rawControls(result.out)).toEqual([]);
    expect(result.out).toContain('\\u001b]0;pwned\\u0007\\u001b[31m');
    // One line per finding: the key cannot forge a line of its own.
    const lines = result.out.split('\n').filter((line) => line.includes('unknown-key'));
    expect(lines).toHaveLength(1);
  });

  it('a newline in a value cannot forge a line of output', async () => {
    const forged = 'x\n✔ 1 policy in 1 file valid (0 errors, 0 warnings)';
    const file = tempPolicy(BILLING.replace('  jitter: none', `  jitter: none\n  ${quoted(forged)}: 1`));
    const result = await cli('validate', file);
    // The findings and the summary share stdout: no line of it may pass for the success line.
    expect(result.out.split('\n').filter((line) => line.startsWith('✔'))).toEqual([]);
    expect(result.out.split('\n').at(-1)).toMatch(/^✖ \d+ polic(y|ies) in 1 file: /);
  });

  it('a bidi override in a consumer is escaped in plan text', async () => {
    const file = tempPolicy(BILLING.replace('  consumer: billing', `  consumer: ${quoted('bil\u202eling')}`));
    const result = await cli('plan', file);
    expect(result.code).toBe(0);
    expect(rawControls(result.out)).toEqual([]);
    expect(result.out).toContain('bil\\u202eling');
  });
});

describe('SVG output is XML', { timeout: SLOW_MS }, () => {
  it('a routing key with U+0001 is refused as an entity name, located', async () => {
    const file = tempPolicy(
      BILLING.replace('routingKey: order.placed', `routingKey: ${quoted('order\u0001placed')}`),
    );
    const result = await cli('validate', file);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(/:\d+:\d+ spec\.targets\.rabbitmq\.routingKey: .*\[error name-invalid\]/);
    expect((await cli('render', file, '--format', 'svg', '--view', 'topology')).code).toBe(1);
  });

  it('text that reaches an SVG never holds a character XML forbids', async () => {
    // The consumer is free text and reaches no SVG; the subscription title does. Use a value
    // that passes validation and is drawn: the vhost is in the topology's subtitle.
    const file = tempPolicy(
      BILLING.replace(
        '      mode: ttl-queues',
        `      mode: ttl-queues\n      vhost: ${quoted('v <&> "\u2028" \ud83d\ude00')}`,
      ),
    );
    for (const view of ['timeline', 'topology']) {
      const result = await cli('render', file, '--format', 'svg', '--view', view, '--target', 'rabbitmq');
      expect(result.code, result.err).toBe(0);
      expect(xmlProblem(result.out)).toBeUndefined();
      expect(rawControls(result.out)).toEqual([]);
    }
  });
});
