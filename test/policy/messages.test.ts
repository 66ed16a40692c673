import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { formatPath, loadPolicyText } from '../../policy';
import { changed, cleanPolicy } from './fixtures';

/**
 * Every message says what is accepted, at the path of the value, with the documented code:
 * the same for all thirteen duration fields, and numbers that name their own bounds.
 */

const LIST_BACKOFF: [string[], unknown] = [['spec', 'backoff'], { type: 'list', delays: ['1s', '2s', '4s'] }];

/** Each duration field, and the changes that make the path exist. */
const DURATION_FIELDS: Array<[string, Array<string | number>, Array<[string[], unknown]>]> = [
  ['immediate.delay', ['spec', 'immediate', 'delay'], []],
  ['backoff.initial', ['spec', 'backoff', 'initial'], []],
  ['backoff.max', ['spec', 'backoff', 'max'], []],
  ['backoff.delays[1]', ['spec', 'backoff', 'delays', 1], [LIST_BACKOFF]],
  ['deadLetter.retention', ['spec', 'deadLetter', 'retention'], []],
  ['messageTtl', ['spec', 'messageTtl'], []],
  ['deadline', ['spec', 'deadline'], []],
  ['rabbitmq.consumerTimeout', ['spec', 'targets', 'rabbitmq', 'consumerTimeout'], []],
  ['kafka.maxPollInterval', ['spec', 'targets', 'kafka', 'maxPollInterval'], []],
  ['kafka.retryRetention', ['spec', 'targets', 'kafka', 'retryRetention'], []],
  ['serviceBus.lockDuration', ['spec', 'targets', 'serviceBus', 'lockDuration'], []],
  ['serviceBus.lockRenewal', ['spec', 'targets', 'serviceBus', 'lockRenewal'], []],
  ['serviceBus.duplicateDetection', ['spec', 'targets', 'serviceBus', 'duplicateDetection'], []],
];

function yamlWith(
  path: Array<string | number>,
  value: unknown,
  first: Array<[string[], unknown]> = [],
): string {
  const base = first.reduce<unknown>((doc, [at, set]) => changed(at, set, doc), cleanPolicy());
  return stringify(changed(path, value, base));
}

function onlyIssue(text: string) {
  const { issues } = loadPolicyText(text, 'p.yaml');
  expect(issues, JSON.stringify(issues)).toHaveLength(1);
  return issues[0] ?? ({} as never);
}

describe('duration fields', () => {
  it('lists thirteen of them', () => expect(DURATION_FIELDS).toHaveLength(13));

  describe.each(DURATION_FIELDS)('%s', (_name, path, first) => {
    it.each([
      ['a bare number', 60, /got the number 60 \(write the unit, e\.g\. "60s"\)$/],
      ['a quoted number', '60', /got "60"$/],
      ['a word', 'fast', /got "fast"$/],
      ['a unit of its own', '2 weeks', /got "2 weeks"$/],
      ['half a millisecond', '0.5ms', /got "0\.5ms"$/],
      ['true', true, /got true$/],
      ['a list', ['1s'], /got a list of 1$/],
    ])('%s gives invalid-duration at the field, saying what is accepted', (_what, value, got) => {
      const found = onlyIssue(yamlWith(path, value, first));
      expect(found.code).toBe('invalid-duration');
      expect(formatPath(found.path)).toBe(formatPath(path));
      expect(found.message).toMatch(/^expected a duration (above zero )?like "500ms" or "2s"/);
      expect(found.message).toMatch(got);
      expect(found.line).toBeGreaterThan(0);
    });
  });

  it('zero is refused where a wait must be positive, and says so', () => {
    const found = onlyIssue(yamlWith(['spec', 'messageTtl'], '0s'));
    expect(found.code).toBe('invalid-duration');
    expect(found.message).toBe('expected a duration above zero like "500ms" or "2s", got "0s"');
  });

  it('a duration written as a YAML number shows what was written', () => {
    const text = stringify(cleanPolicy()).replace('messageTtl: 1h', 'messageTtl: 1.50');
    const found = onlyIssue(text);
    expect(found.message).toContain('(write the unit, e.g. "1.50s")');
  });
});

describe('numbers', () => {
  it.each([
    ['1.5', 1.5, 'invalid-type', 'expected a whole number from 1 to 100, got the number 1.5'],
    ['"6"', '6', 'invalid-type', 'expected a whole number from 1 to 100, got "6" (write it without quotes)'],
    ['1e308', 1e308, 'out-of-range', 'expected a whole number from 1 to 100, got the number 1e+308'],
    ['0', 0, 'out-of-range', 'expected a whole number from 1 to 100, got the number 0'],
    ['101', 101, 'out-of-range', 'expected a whole number from 1 to 100, got the number 101'],
  ])('maxAttempts %s', (_name, value, code, message) => {
    const found = onlyIssue(yamlWith(['spec', 'maxAttempts'], value));
    expect(found.code).toBe(code);
    expect(formatPath(found.path)).toBe('spec.maxAttempts');
    expect(found.message).toBe(message);
  });

  it('a number with only a lower bound says so', () => {
    const found = onlyIssue(yamlWith(['spec', 'amplificationBudget'], 0));
    expect(found.message).toBe('expected a whole number >= 1, got the number 0');
  });

  it('text that YAML read as a number says to quote it, the way it was written', () => {
    const text = stringify(cleanPolicy()).replace('brokerVersion: 4.4.0', 'brokerVersion: 4.10');
    const found = onlyIssue(text);
    expect(found.code).toBe('invalid-type');
    expect(found.message).toBe('expected text, got the number 4.1 (written 4.10; put it in quotes: "4.10")');
  });
});

describe('the backoff type', () => {
  it('an unknown type is named at backoff.type, with the types there are', () => {
    const found = onlyIssue(yamlWith(['spec', 'backoff'], { type: 'fixed' }));
    expect(found.code).toBe('invalid-value');
    expect(formatPath(found.path)).toBe('spec.backoff.type');
    expect(found.message).toBe('expected one of "exponential", "list", got "fixed"');
  });

  it('a missing type is required at backoff.type', () => {
    const found = onlyIssue(yamlWith(['spec', 'backoff'], { initial: '1s' }));
    expect(found.code).toBe('required');
    expect(formatPath(found.path)).toBe('spec.backoff.type');
  });
});
