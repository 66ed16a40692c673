import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BILLING, BILLING_UNREVIEWED, cli, tempPolicy } from './cli-harness';
import { liveMarkdown } from './inert';

/** Each test runs the CLI several times; a loaded 2-core machine can take seconds for each. */
const SLOW_MS = 60_000;

/** What a reviewer reads: where dead letters are, acknowledged warnings, and a comment that fits. */

const SUBSCRIPTION_DLQ = 'orders/subscriptions/billing/$deadletterqueue';
const RETRY_DLQ = 'billing.order-placed.retry/$deadletterqueue';

describe('Service Bus dead letters in plan and render (item 6)', { timeout: SLOW_MS }, () => {
  it("plan points exhausted messages at the retry queue's subqueue, and lists both", async () => {
    const result = await cli('plan', 'policies/billing.yaml', '--target', 'servicebus');
    expect(result.code).toBe(0);
    expect(result.out).toContain(`then     —     7s      dead letter → ${RETRY_DLQ}`);
    expect(result.out).toContain(`${SUBSCRIPTION_DLQ} (failures on attempt 1)`);
    expect(result.out).toContain(`${RETRY_DLQ} (failures on attempts 2–4, exhausted messages included)`);
  });

  it("render draws both dead-letter queues, the exhausted arrow into the retry queue's", async () => {
    const result = await cli(
      'render',
      'policies/billing.yaml',
      '--format',
      'mermaid',
      '--view',
      'topology',
      '--target',
      'servicebus',
    );
    expect(result.out).toContain(
      `dlq_2[("dead-letter queue<br/>${RETRY_DLQ}<br/>failures on attempts 2–4")]`,
    );
    expect(result.out).toContain('retry ==>|"exhausted or permanent"| dlq_2');
    expect(result.out).toContain('main ==>|"permanent"| dlq_1');
  });

  it('the diff names the dead letters of each target', async () => {
    const next = tempPolicy(BILLING.replace('maxAttempts: 4', 'maxAttempts: 1'));
    const result = await cli('diff', 'policies/billing.yaml', next);
    expect(result.out).toContain(
      `| serviceBus dead letters | \`${SUBSCRIPTION_DLQ} (failures on attempt 1); ${RETRY_DLQ} (failures on attempts 2–4, exhausted messages included)\` | \`${SUBSCRIPTION_DLQ} (failures on attempt 1, exhausted messages included)\` |`,
    );
  });
});

describe('an acknowledged warning (item 8)', { timeout: SLOW_MS }, () => {
  const REASON = 'fixed waits are what the partner rate limiter expects; reviewed in #412';
  const unreviewed = tempPolicy(BILLING_UNREVIEWED);
  const acknowledged = BILLING_UNREVIEWED.replace(
    '  jitter: none',
    `  jitter: none\n  acknowledge:\n    - code: no-jitter\n      reason: "${REASON}"`,
  );

  it('lets validate --strict pass, and says what was acknowledged', async () => {
    expect((await cli('validate', '--strict', unreviewed)).code).toBe(1);
    const result = await cli('validate', '--strict', tempPolicy(acknowledged));
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/ℹ .*spec\.jitter: .*; acknowledged: ".*reviewed in #412" \[note no-jitter\]/);
    expect(result.out).toContain('(0 errors, 0 warnings, 1 note)');
  });

  it('is shown in plan with its reason', async () => {
    const result = await cli('plan', tempPolicy(acknowledged));
    expect(result.out).toContain('notes:');
    expect(result.out).toContain(`acknowledged: "${REASON}" [note no-jitter]`);
  });

  it('shows in the diff as a resolved warning and a new note carrying the reason', async () => {
    const result = await cli('diff', unreviewed, tempPolicy(acknowledged));
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /New:\n\n- ℹ `billing.order-placed`: `.*acknowledged: ".*reviewed in #412" \[note no-jitter\]`/,
    );
    expect(result.out).toMatch(/Resolved:\n\n- ⚠ `billing.order-placed`: `.*\[warning no-jitter\]`/);
    // "#412" is inside a code span: no issue reference.
    expect(liveMarkdown(result.out)).toEqual([]);
  });
});

/** 40 policies of their own, each changed: a new delay and a renamed main queue. */
function fortyPolicies(): { old: string; next: string } {
  const root = mkdtempSync(join(tmpdir(), 'rt-forty-'));
  const old = join(root, 'old');
  const next = join(root, 'new');
  mkdirSync(old);
  mkdirSync(next);
  for (let index = 0; index < 40; index++) {
    const name = `team${index}.orders`;
    const policy = BILLING.replaceAll('billing.order-placed', name)
      .replace('consumerGroup: billing', `consumerGroup: group${index}`)
      .replace('subscription: billing', `subscription: sub${index}`)
      .replace(
        'topic: bookstore.orders\n      declareTopic: true',
        'topic: bookstore.orders\n      declareTopic: false',
      )
      .replace('declareExchange: true', 'declareExchange: false');
    writeFileSync(join(old, `${name}.yaml`), policy);
    writeFileSync(
      join(next, `${name}.yaml`),
      policy
        .replace('initial: 1s', 'initial: 2s')
        .replace('max: 4s', 'max: 8s')
        .replace(`queue: ${name}`, `queue: ${name}.v2`)
        .replace('partitions: 3', 'partitions: 4'),
    );
  }
  return { old, next };
}

describe('a bounded pull-request comment (item 12)', { timeout: SLOW_MS }, () => {
  it('40 changed policies fit in a comment, summary and table first, with a line for what was cut', async () => {
    const { old, next } = fortyPolicies();
    const report = join(mkdtempSync(join(tmpdir(), 'rt-report-')), 'full.md');
    const result = await cli('diff', old, next, '--full-report', report);
    expect(result.code).toBe(0);
    expect(result.out.length).toBeLessThan(65_536);
    expect(result.out.length).toBeLessThanOrEqual(60_000);
    const lines = result.out.split('\n');
    expect(lines[0]).toBe('<!-- retry-topology diff -->');
    expect(result.out).toContain(
      '**40 changed, 0 added, 0 removed, 0 unchanged · 🔴 40 changes would lose messages · 🟡 240 changes to check**',
    );
    // The table of every changed policy is whole.
    for (let index = 0; index < 40; index++)
      expect(result.out).toContain(`| \`team${index}.orders\` | changed |`);
    expect(result.out).toMatch(
      /\*\*\d+ policy details more not shown here\*\* \(a comment holds at most 65,536 characters\): see the full report, `.*full\.md` \(the job's artifact\), and the job log\.\n$/,
    );
    // Details are folded; data-loss ones open.
    expect(result.out).toContain('<details open><summary><code>team0.orders</code> changed: 🔴 1 🟡 6');
    // The full report has every policy's details.
    const full = readFileSync(report, 'utf8');
    expect(full.length).toBeGreaterThan(65_536);
    expect(full.match(/<details open><summary><code>team\d+\.orders<\/code>/g)).toHaveLength(40);
    expect(full).not.toContain('more not shown here');
  });

  it('a tighter --max-chars is kept, and the summary is still whole', async () => {
    const { old, next } = fortyPolicies();
    const result = await cli('diff', old, next, '--max-chars', '5000');
    expect(result.out.length).toBeLessThanOrEqual(5_000);
    expect(result.out).toContain('**40 changed, 0 added, 0 removed, 0 unchanged');
    expect(result.out).toMatch(/more not shown here/);
  });

  it('a binary file is one finding, not 140 KB of them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rt-binary-'));
    const bytes = Buffer.alloc(140_000);
    for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 31) % 256;
    writeFileSync(join(dir, 'billing.yaml'), bytes);
    const result = await cli('diff', 'policies/billing.yaml', join(dir, 'billing.yaml'));
    expect(result.code).toBe(1);
    expect(result.out.length).toBeLessThan(5_000);
    expect(result.out.match(/invalid-encoding/g)).toHaveLength(1);
  });
});
