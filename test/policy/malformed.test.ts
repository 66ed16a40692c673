import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hasErrors, ISSUE_CODES, loadPolicyText } from '../../policy';
import { cleanPolicy } from './fixtures';
import { mutate, mutation } from './mutations';

const CLEAN = cleanPolicy();

function assertReported(text: string) {
  let result: ReturnType<typeof loadPolicyText> | undefined;
  expect(() => {
    result = loadPolicyText(text, 'fuzz.yaml');
  }).not.toThrow();
  const issues = result?.issues ?? [];
  expect(hasErrors(issues)).toBe(true);
  for (const found of issues) {
    expect(Object.keys(ISSUE_CODES)).toContain(found.code);
    expect(found.file).toBe('fuzz.yaml');
    expect(found.message.length).toBeGreaterThan(0);
    expect(found.message).not.toMatch(/TypeError|undefined is not|at .*\.js:\d+/);
  }
}

// A thousand parses take a few seconds on a quiet machine and several times that on a loaded one.
const FUZZ_TIMEOUT_MS = 120_000;

describe('malformed documents', () => {
  it(
    '1,000 mutated policies each get a validation error with a position, never a crash',
    () => {
      fc.assert(
        fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
          const text = stringify(mutate(CLEAN, mutations));
          assertReported(text);
          const { issues } = loadPolicyText(text, 'fuzz.yaml');
          for (const found of issues) expect(found.line).toBeGreaterThan(0);
        }),
        { numRuns: 1000 },
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    '500 arbitrary texts each get an error, never a crash',
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string({ maxLength: 200 }),
            fc.string({
              unit: fc.constantFrom(
                'a',
                ':',
                ' ',
                '\n',
                '-',
                '[',
                ']',
                '{',
                '}',
                '&x',
                '*x',
                '!!',
                '"',
                '#',
                '---\n',
              ),
              maxLength: 200,
            }),
            fc.jsonValue().map((value) => stringify(value)),
          ),
          (text) => assertReported(text),
        ),
        { numRuns: 500 },
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it('an alias bomb is refused without expanding it', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 9; level++) {
      const previous = String.fromCharCode(96 + level);
      const next = String.fromCharCode(97 + level);
      bomb.push(`${next}: &${next} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    assertReported(bomb.join('\n'));
  });
});
