import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { checkDocument, ISSUE_CODES, type Issue, loadPolicyText } from '../../policy';
import { PolicySchema } from '../../policy/schema';
import { schemaIssues } from '../../policy/schema-issues';
import { changed, withChanges } from './fixtures';
import { mutate, mutation, objects, set } from './mutations';

/**
 * A policy the schema refuses still gets every rule that can run on the parts it accepts
 * (policy/parts.ts): the schema's findings and the rules' side by side.
 */

const T = ['spec', 'targets'];
const RABBIT = [...T, 'rabbitmq'];

/** A 5 s deadline: the clean policy's retry window (up to 8.6 s) is longer. */
const tightDeadline = () => changed(['spec', 'deadline'], '5s');

const codes = (issues: readonly Issue[]) => issues.map((found) => found.code).sort();

/** The 1-based line of the first line of `text` that contains `needle`. */
const lineOf = (text: string, needle: string) =>
  text.split('\n').findIndex((line) => line.includes(needle)) + 1;

describe('rule findings beside schema findings', () => {
  it('a RabbitMQ target without its brokerVersion still gets retry-window-exceeds-deadline, both located', () => {
    const doc = tightDeadline();
    set(doc, [...RABBIT, 'brokerVersion'], undefined, true);
    const text = stringify(doc);
    const { issues, policies } = loadPolicyText(text, 'orders.yaml');
    expect(policies).toEqual([]);
    expect(issues).toHaveLength(2);
    expect(issues).toContainEqual(
      expect.objectContaining({
        code: 'required',
        severity: 'error',
        path: [...RABBIT, 'brokerVersion'],
        file: 'orders.yaml',
        // A missing field is reported on the key of the mapping that lacks it.
        line: lineOf(text, 'rabbitmq:'),
      }),
    );
    expect(issues).toContainEqual(
      expect.objectContaining({
        code: 'retry-window-exceeds-deadline',
        severity: 'error',
        path: ['spec', 'deadline'],
        file: 'orders.yaml',
        line: lineOf(text, 'deadline: 5s'),
        column: 13,
        policy: 'billing.order-placed',
      }),
    );
  });

  it('a rule that reads a refused field is skipped; every other rule runs', () => {
    const doc = withChanges([
      [['spec', 'deadline'], '5s'],
      [[...T, 'kafka', 'retryRetention'], '5s'],
      [[...T, 'serviceBus', 'lockDuration'], '10m'],
      [[...RABBIT, 'deadLetterStrategy'], 'at-most-once'],
      [[...RABBIT, 'quorumReplicas'], 2],
    ]);
    const found = [
      'lock-duration-over-max',
      'quorum-replicas-even',
      'retention-below-delay',
      'retry-window-exceeds-deadline',
    ];
    expect(codes(checkDocument(doc).issues)).toEqual(['at-most-once-dead-lettering', ...found]);
    // Without brokerVersion, the RabbitMQ broker checks (which start from it) are skipped; the
    // replication check of the same target reads only the replica counts, and still runs.
    set(doc, [...RABBIT, 'brokerVersion'], undefined, true);
    expect(codes(checkDocument(doc).issues)).toEqual([...found, 'required'].sort());
    // A backoff the schema refuses: nothing that needs the waits can be said, the rest can.
    const noWaits = withChanges([
      [['spec', 'deadline'], '5s'],
      [['spec', 'backoff', 'initial'], 'soon'],
      [[...T, 'serviceBus', 'lockDuration'], '10m'],
      [['spec', 'jitter'], 'none'],
    ]);
    expect(codes(checkDocument(noWaits).issues)).toEqual([
      'invalid-duration',
      'lock-duration-over-max',
      'no-jitter',
    ]);
  });

  it('a field left out beside an unknown key is not read as its default: it may be the misspelt one', () => {
    const longWaits = (retention: [string, string]) =>
      withChanges([
        [['spec', 'backoff', 'initial'], '4d'],
        [['spec', 'backoff', 'max'], '4d'],
        [['spec', 'messageTtl'], undefined],
        [['spec', 'deadline'], undefined],
        [[...T, 'kafka', retention[0]], retention[1]],
      ]);
    // Spelt right, a 6-day retention is below twice the 4-day wait.
    expect(codes(checkDocument(longWaits(['retryRetention', '6d'])).issues)).toEqual([
      'retention-below-delay',
    ]);
    // Misspelt, the default 7 days would be below it too, but that is not what was written.
    expect(codes(checkDocument(longWaits(['retryRetension', '30d'])).issues)).toEqual(['unknown-key']);
  });

  it('a refused acknowledgement accepts nothing; the others still turn their warnings into notes', () => {
    const doc = withChanges([
      [['spec', 'jitter'], 'none'],
      [['spec', 'classify', 'unknown'], 'transient'],
      [
        ['spec', 'acknowledge'],
        [
          { code: 'no-jitter', reason: 'fixed waits on purpose' },
          { code: 'unknown-errors-transient', reason: ' ' },
        ],
      ],
    ]);
    const found = checkDocument(doc).issues.map((each) => [each.code, each.severity]);
    // No acknowledgement-unused while the policy is broken: a skipped rule may be the one it is for.
    expect(found).toEqual([
      ['invalid-format', 'error'],
      ['no-jitter', 'note'],
      ['unknown-errors-transient', 'warning'],
    ]);
  });

  it('a document with nothing the rules can read gets the schema findings only', () => {
    expect(
      codes(checkDocument({ apiVersion: 'retry-topology/v1', kind: 'RetryPolicy', spec: 3 }).issues),
    ).toEqual(['invalid-type', 'required']);
  });
});

/**
 * A policy with findings from every part: the deadline and the waits, jitter, classification,
 * amplification, each target, replication, and an acknowledged warning.
 */
const NOISY = withChanges([
  [['spec', 'deadline'], '5s'],
  [['spec', 'jitter'], 'none'],
  [['spec', 'classify', 'unknown'], 'transient'],
  [['spec', 'innerLayers', 0, 'attempts'], 10],
  [['spec', 'acknowledge'], [{ code: 'no-jitter', reason: 'fixed waits on purpose' }]],
  [[...RABBIT, 'quorumReplicas'], 2],
  [[...T, 'kafka', 'retryRetention'], '5s'],
  [[...T, 'kafka', 'minInSyncReplicas'], 3],
  [[...T, 'serviceBus', 'lockDuration'], '10m'],
]);

/** What a finding says, whatever its severity (a refused acknowledgement turns a note back into a warning). */
const said = (found: Issue) => JSON.stringify([found.code, found.path, found.message]);

function schemaFindings(doc: unknown): Issue[] {
  const parsed = PolicySchema.safeParse(doc, { reportInput: true });
  return parsed.success ? [] : schemaIssues(parsed.error.issues, PolicySchema, doc);
}

// A thousand checks take a few seconds on a quiet machine and several times that on a loaded one.
const FUZZ_TIMEOUT_MS = 120_000;

describe('rules on policies the schema refuses', () => {
  const intact = checkDocument(NOISY);

  it('the intact policy has findings from every part', () => {
    expect(intact.policy).toBeDefined();
    expect(codes(intact.issues)).toEqual([
      'amplification-over-budget',
      'lock-duration-over-max',
      'min-insync-equals-replication',
      'no-jitter',
      'quorum-replicas-even',
      'retention-below-delay',
      'retry-window-exceeds-deadline',
      'unknown-errors-transient',
    ]);
  });

  it(
    'a broken part never changes what a rule says: every rule finding is one the intact policy has',
    () => {
      const before = new Set(intact.issues.map(said));
      let kept = 0;
      fc.assert(
        fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
          const doc = mutate(NOISY, mutations);
          const refused = schemaFindings(doc);
          expect(refused.length).toBeGreaterThan(0);
          const { policy, issues } = checkDocument(doc);
          expect(policy).toBeUndefined();
          expect(issues.slice(0, refused.length)).toEqual(refused);
          const rules = issues.slice(refused.length);
          for (const found of rules) expect(before).toContain(said(found));
          kept += rules.length;
        }),
        { numRuns: 1000 },
      );
      // Most breaks leave most rules something to read.
      expect(kept).toBeGreaterThan(1000);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'no rule throws, whatever value stands anywhere in the policy',
    () => {
      const places = [...objects(NOISY), [...RABBIT, 'x-extra']];
      fc.assert(
        fc.property(
          fc.array(
            fc.record({
              place: fc.nat(),
              key: fc.oneof(fc.constantFrom('', 'mode', 'delays', 'code', '0'), fc.string({ maxLength: 8 })),
              value: fc.anything(),
            }),
            { minLength: 1, maxLength: 4 },
          ),
          (changes) => {
            const doc = structuredClone(NOISY);
            for (const { place, key, value } of changes) {
              const path = places[place % places.length] ?? [];
              try {
                // A key of that mapping (a field or a new one), or the mapping itself.
                set(doc, key === '' ? path : [...path, key], value);
              } catch {
                // An earlier change replaced this path's parent with something that is not a mapping.
              }
            }
            const { issues } = checkDocument(doc);
            for (const found of issues) expect(Object.keys(ISSUE_CODES)).toContain(found.code);
          },
        ),
        { numRuns: 1000 },
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
