import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatIssue, loadPolicyText } from '../../policy';

const BILLING = readFileSync('policies/billing.yaml', 'utf8');

function lineOf(text: string, needle: string): number {
  return text.split('\n').findIndex((line) => line.includes(needle)) + 1;
}

describe('positions in policy files', () => {
  it('points a broken duration at its value, with file, line, column and path', () => {
    const text = BILLING.replace('initial: 1s', 'initial: fast');
    const [found] = loadPolicyText(text, 'policies/billing.yaml').issues.filter(
      (each) => each.severity === 'error',
    );
    expect(found).toMatchObject({
      code: 'invalid-duration',
      path: ['spec', 'backoff', 'initial'],
      line: lineOf(text, 'initial: fast'),
    });
    expect(found?.column).toBe(
      (text.split('\n')[lineOf(text, 'initial: fast') - 1]?.indexOf('fast') ?? -1) + 1,
    );
    expect(formatIssue(found ?? ({} as never))).toBe(
      `policies/billing.yaml:${found?.line}:${found?.column} spec.backoff.initial: expected a duration like "500ms" or "2s" (units ms, s, m, h, d), got "fast" [error invalid-duration]`,
    );
  });

  it('points a missing field at its parent key', () => {
    const text = BILLING.replace('  maxAttempts: 4\n', '');
    const found = loadPolicyText(text, 'b.yaml').issues.find((each) => each.code === 'required');
    expect(found).toMatchObject({ path: ['spec', 'maxAttempts'], line: lineOf(text, 'spec:'), column: 1 });
  });

  it('points an unknown key at the key, and suggests the likely one', () => {
    const text = BILLING.replace('  jitter: none', '  jiter: none');
    const found = loadPolicyText(text, 'b.yaml').issues.find((each) => each.code === 'unknown-key');
    expect(found).toMatchObject({ path: ['spec', 'jiter'], line: lineOf(text, 'jiter'), column: 3 });
    expect(found?.message).toContain('did you mean "jitter"');
  });

  it('points a key YAML would read as a number, a boolean or null at the key itself, as written', () => {
    const text = BILLING.replace('  consumer: billing\n', '  consumer: billing\n  123: x\n  null: x\n')
      .replace('      partitions: 3\n', '      partitions: 3\n      1.5: x\n      true: x\n')
      .replace('      entity: subscription\n', '      entity: subscription\n      0x1F: x\n');
    const unknown = loadPolicyText(text, 'b.yaml')
      .issues.filter((each) => each.code === 'unknown-key')
      .sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    const at = (needle: string) => ({
      line: lineOf(text, needle),
      column: needle.indexOf(needle.trim()) + 1,
    });
    expect(unknown.map(({ path, line, column, message }) => ({ path, line, column, message }))).toEqual([
      { path: ['spec', '123'], ...at('  123: x'), message: expect.stringMatching(/^unknown key "123" /) },
      { path: ['spec', 'null'], ...at('  null: x'), message: expect.stringMatching(/^unknown key "null" /) },
      {
        path: ['spec', 'targets', 'kafka', '1.5'],
        ...at('      1.5: x'),
        message: expect.stringMatching(/^unknown key "1.5" /),
      },
      {
        path: ['spec', 'targets', 'kafka', 'true'],
        ...at('      true: x'),
        message: expect.stringMatching(/^unknown key "true" /),
      },
      {
        path: ['spec', 'targets', 'serviceBus', '0x1F'],
        ...at('      0x1F: x'),
        message: expect.stringMatching(/^unknown key "0x1F" /),
      },
    ]);
  });

  it('reads a key the way it is written: 1 and "1" are the same key, and a duplicate', () => {
    const text = BILLING.replace('  consumer: billing\n', '  consumer: billing\n  1: x\n  "1": y\n');
    expect(loadPolicyText(text, 'b.yaml').issues).toMatchObject([
      { code: 'yaml-syntax', line: lineOf(text, '"1": y'), message: expect.stringContaining('unique') },
    ]);
  });

  it('a key that is a list or a mapping is a YAML error in plain words, at the key', () => {
    const text = BILLING.replace('  consumer: billing\n', '  consumer: billing\n  ? [a, b]\n  : x\n');
    expect(loadPolicyText(text, 'b.yaml').issues).toMatchObject([
      {
        code: 'yaml-syntax',
        line: lineOf(text, '? [a, b]'),
        column: 5,
        message: 'a key must be text, not a list, a mapping or a tagged value',
      },
    ]);
  });

  it('reports every problem at once', () => {
    const text = BILLING.replace('initial: 1s', 'initial: fast')
      .replace('  jitter: none', '  jiter: none')
      .replace('maxAttempts: 4', 'maxAttempts: many');
    const codes = loadPolicyText(text, 'b.yaml')
      .issues.map((each) => each.code)
      .sort();
    expect(codes).toEqual(['invalid-duration', 'invalid-type', 'unknown-key']);
  });

  it('shows a version YAML read as a number the way it was written', () => {
    const text = BILLING.replace('brokerVersion: "3.10.8"', 'brokerVersion: 3.10');
    const found = loadPolicyText(text, 'b.yaml').issues.find((each) => each.code === 'invalid-type');
    expect(found?.path).toEqual(['spec', 'targets', 'rabbitmq', 'brokerVersion']);
    expect(found?.message).toContain('"3.10"');
  });

  it('reads several policies from one file, each with its own positions', () => {
    const second = BILLING.replace('name: billing.order-placed', 'name: billing.order-cancelled').replace(
      'initial: 1s',
      'initial: soon',
    );
    const text = `${BILLING}---\n${second}`;
    const result = loadPolicyText(text, 'two.yaml');
    expect(result.policies.map((loaded) => loaded.policy.name)).toEqual(['billing.order-placed']);
    const found = result.issues.find((each) => each.code === 'invalid-duration');
    expect(found?.line).toBe(lineOf(text, 'initial: soon'));
  });

  it('places a finding across policies in the right document of a file, past one YAML could not read', () => {
    // Those findings are located after every file is read, from the text read again.
    const broken = 'kind: RetryPolicy\nmetadata: {name: [}\n';
    const text = `${BILLING}---\n${broken}---\n# the same policy again\n${BILLING}`;
    const result = loadPolicyText(text, 'three.yaml');
    const duplicate = result.issues.filter((each) => each.code === 'duplicate-policy-name');
    const second = text.indexOf('# the same policy again');
    const line = text.slice(0, second).split('\n').length + lineOf(BILLING, 'name: billing.order-placed');
    expect(duplicate).toMatchObject([{ file: 'three.yaml', path: ['metadata', 'name'], line, column: 9 }]);
    expect(result.issues.map((each) => each.code)).toContain('yaml-syntax');
  });
});
