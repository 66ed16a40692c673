import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hasErrors, ISSUE_CODES, loadPolicyText } from '../../policy';
import { cleanPolicy } from './fixtures';

/** Paths of every leaf in the clean policy, with the leaf's value. */
function leaves(value: unknown, path: Array<string | number> = []): Array<[Array<string | number>, unknown]> {
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, inner]) =>
      leaves(inner, [...path, Array.isArray(value) ? Number(key) : key]),
    );
  }
  return [[path, value]];
}

function objects(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return [path, ...Object.entries(value).flatMap(([key, inner]) => objects(inner, [...path, key]))];
}

const CLEAN = cleanPolicy();
const LEAVES = leaves(CLEAN);
const OBJECTS = objects(CLEAN);
/** Fields the schema requires; deleting one must be an error. */
const REQUIRED: Array<Array<string>> = [
  ['apiVersion'],
  ['kind'],
  ['metadata', 'name'],
  ['spec', 'consumer'],
  ['spec', 'maxAttempts'],
  ['spec', 'backoff'],
  ['spec', 'backoff', 'initial'],
  ['spec', 'classify'],
  ['spec', 'idempotency'],
  ['spec', 'targets', 'rabbitmq', 'exchange'],
  ['spec', 'targets', 'rabbitmq', 'brokerVersion'],
  ['spec', 'targets', 'kafka', 'partitions'],
  ['spec', 'targets', 'serviceBus', 'queue'],
];

function set(
  doc: Record<string, unknown>,
  path: ReadonlyArray<string | number>,
  value: unknown,
  remove = false,
) {
  let node = doc as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (remove) delete node[last];
  else node[last] = value;
}

/** A value of the wrong kind for a leaf: every leaf's schema accepts one JSON type only. */
function wrongKind(original: unknown, pick: number): unknown {
  if (typeof original === 'number')
    return [`${original} apples`, { value: original }, [original], true][pick % 4];
  if (typeof original === 'boolean') return ['yes', 1, null][pick % 3];
  return [42, { text: original }, [original], false, null][pick % 5];
}

type Mutation =
  | { kind: 'delete'; index: number }
  | { kind: 'retype'; index: number; pick: number }
  | { kind: 'extra'; index: number; key: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('retype' as const), index: fc.nat(), pick: fc.nat() }),
  fc.record({
    kind: fc.constant('extra' as const),
    index: fc.nat(),
    key: fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((key) => !['__proto__', 'constructor'].includes(key)),
  }),
);

function mutate(mutations: Mutation[]): Record<string, unknown> {
  const doc = structuredClone(CLEAN) as Record<string, unknown>;
  for (const change of mutations) {
    try {
      if (change.kind === 'delete') {
        const path = REQUIRED[change.index % REQUIRED.length] as string[];
        set(doc, path, undefined, true);
      } else if (change.kind === 'retype') {
        const [path, value] = LEAVES[change.index % LEAVES.length] as [Array<string | number>, unknown];
        set(doc, path, wrongKind(value, change.pick));
      } else {
        const path = OBJECTS[change.index % OBJECTS.length] as Array<string | number>;
        let node = doc as Record<string | number, unknown>;
        for (const key of path) node = node[key] as Record<string | number, unknown>;
        // A key the schema does not know at that level (prefixed so it never hits a real one).
        node[`x-${change.key}`] = 'surprise';
      }
    } catch {
      // An earlier mutation removed this path's parent; the earlier one already broke the policy.
    }
  }
  return doc;
}

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
          const text = stringify(mutate(mutations));
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
