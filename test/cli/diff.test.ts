import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BILLING, cli, tempPolicy } from './cli-harness';

/** The Markdown table row of a resource change: risk, change, resource. */
function row(markdown: string, resource: string): string {
  const line = markdown.split('\n').find((each) => each.startsWith('| ') && each.includes(resource));
  if (!line) throw new Error(`no change row for ${resource} in:\n${markdown}`);
  return line;
}

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rt-diff-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('retry-topology diff', () => {
  it('says "no changes" for a policy diffed against itself', async () => {
    const result = await cli('diff', 'policies/billing.yaml', 'policies/billing.yaml');
    expect(result.code).toBe(0);
    expect(result.out).toContain('**No changes**');
    expect(result.out).not.toContain('| risk |');
  });

  it('shows a delay change in the timeline and as a policy updated in place, not a replacement', async () => {
    const next = tempPolicy(BILLING.replace('initial: 1s', 'initial: 2s').replace('max: 4s', 'max: 8s'));
    const result = await cli('diff', 'policies/billing.yaml', next);
    expect(result.code).toBe(0);
    expect(result.out).toContain('<summary><code>billing.order-placed</code> changed');
    // Timeline: attempt 2 waited 1 s, now 2 s; the window to attempt 4 goes from 7 s to 14 s.
    expect(result.out).toContain('| 2 | 1s | **2s** | 1s | **2s** | `billing.order-placed.retry.1` |');
    expect(result.out).toContain('| 4 | 4s | **8s** | 7s | **14s** |');
    expect(result.out).toMatch(/\| rabbitmq retry window \| `7s` \| `14s` \|/);
    // Resources: the wait queues' policies change in place; no queue is touched.
    expect(row(result.out, 'policy `retry-topology.billing.order-placed.retry.1`')).toBe(
      '| 🟢 safe | update | policy `retry-topology.billing.order-placed.retry.1` | policy updated in place: message-ttl `1000` → `2000` |',
    );
    expect(result.out).not.toMatch(/\| replace \|/);
    expect(result.out).not.toContain('data loss');
  });

  it('flags a renamed main queue as a replacement that loses messages', async () => {
    const next = tempPolicy(
      BILLING.replace('      queue: billing.order-placed', '      queue: billing.orders'),
    );
    const result = await cli('diff', 'policies/billing.yaml', next);
    expect(result.out).toContain('🔴 1 change would lose messages');
    expect(row(result.out, 'queue `billing.orders`')).toMatch(
      /🔴 data loss \| replace \| .*replaces queue `billing.order-placed` \(new name `billing.orders`\): messages in it would be lost \(protected/,
    );
  });

  it('shows a changed replica count as a caution on every queue, never a replacement', async () => {
    const next = tempPolicy(BILLING.replace('quorumReplicas: 1', 'quorumReplicas: 3'));
    const result = await cli('diff', 'policies/billing.yaml', next);
    expect(result.code).toBe(0);
    expect(row(result.out, 'queue `billing.order-placed.retry.2`')).toMatch(
      /🟡 caution \| update \| .*replica count 1 → 3 is for queues declared from now on: this queue keeps its members and its messages/,
    );
    expect(result.out.match(/replica count 1 → 3/g)).toHaveLength(5);
    expect(result.out).not.toMatch(/\| replace \|/);
    expect(result.out).not.toContain('data loss');
  });

  it('keeps a removed wait level on the broker and adds a new one safely', async () => {
    const fewer = await cli(
      'diff',
      'policies/billing.yaml',
      tempPolicy(BILLING.replace('maxAttempts: 4', 'maxAttempts: 3')),
    );
    expect(row(fewer.out, 'queue `billing.order-placed.retry.3`')).toMatch(
      /🟡 caution \| retain \| .*still return to `billing.order-placed`/,
    );
    expect(row(fewer.out, 'topic `billing.order-placed.retry.3`')).toMatch(/🟡 caution \| retain \|/);
    expect(fewer.out).toMatch(/\| maxAttempts \| `4` \| `3` \|/);
    const more = await cli(
      'diff',
      'policies/billing.yaml',
      tempPolicy(BILLING.replace('maxAttempts: 4', 'maxAttempts: 5')),
    );
    expect(row(more.out, 'queue `billing.order-placed.retry.4`')).toContain('🟢 safe | create |');
  });

  it('flags fewer Kafka partitions as data loss and more as a change to per-key order', async () => {
    const fewer = await cli(
      'diff',
      'policies/billing.yaml',
      tempPolicy(BILLING.replace('partitions: 3', 'partitions: 2')),
    );
    expect(row(fewer.out, 'topic `billing.order-placed.dlt`')).toMatch(
      /🔴 data loss \| replace \| .*cannot shrink/,
    );
    const more = await cli(
      'diff',
      'policies/billing.yaml',
      tempPolicy(BILLING.replace('partitions: 3', 'partitions: 4')),
    );
    expect(row(more.out, 'topic `billing.order-placed.dlt`')).toMatch(
      /🟡 caution \| update \| .*per-key order/,
    );
  });

  it('flags a Service Bus property fixed at creation as a replacement', async () => {
    const queue = BILLING.replace(
      '      entity: subscription\n      topic: orders\n      subscription: billing',
      '      entity: queue\n      queue: billing',
    );
    const dedup = queue.replace(
      '      queue: billing\n',
      '      queue: billing\n      duplicateDetection: 10m\n',
    );
    expect(dedup).not.toBe(queue);
    const result = await cli('diff', tempPolicy(queue), tempPolicy(dedup));
    expect(row(result.out, 'queue `billing` |')).toMatch(
      /🔴 data loss \| replace \| .*requiresDuplicateDetection cannot change after creation/,
    );
  });

  it('fails on a new error, lists it, and shows the broken policy as changed, not removed', async () => {
    const next = tempPolicy(BILLING.replace('messageTtl: 1h', 'messageTtl: 5s'));
    const result = await cli('diff', 'policies/billing.yaml', next);
    expect(result.code).toBe(1);
    expect(result.out).toContain('<summary><code>billing.order-placed</code> changed');
    expect(result.out).toContain('After: (no plan: errors)');
    expect(result.out).toMatch(/New:\n\n- ✖ `billing.order-placed`: `.*\[error retry-window-exceeds-ttl\]`/);
    expect(result.err).toContain('1 new error');
    // The way back resolves it and passes.
    const back = await cli('diff', next, 'policies/billing.yaml');
    expect(back.code).toBe(0);
    expect(back.out).toMatch(/Resolved:\n\n- ✖ .*retry-window-exceeds-ttl/);
  });

  it('lists the findings of a side that does not parse, and fails only if they are new', async () => {
    const broken = tempPolicy(BILLING.replace('initial: 1s', 'initial: soon'), 'billing.yaml');
    const result = await cli('diff', 'policies/billing.yaml', broken);
    expect(result.code).toBe(1);
    expect(result.out).toContain('[error invalid-duration]');
    expect(result.out).toContain('<summary><code>billing.order-placed</code> changed');
    expect(result.out).toContain('**1 changed, 0 added, 0 removed, 0 unchanged');
    expect((await cli('diff', broken, broken)).code).toBe(0);
  });

  it('names the file that broke, on either side, and an errored new side resolves nothing', async () => {
    const broken = tempPolicy(BILLING.replace('jitter: none', 'jitter: nope'), 'billing.yaml');
    const result = await cli('diff', 'policies/billing.yaml', broken);
    expect(result.code).toBe(1);
    expect(result.out).toContain(`After: (no plan: errors) in \`${broken}\``);
    expect(result.out).toMatch(/New:\n\n- ✖ `billing.yaml`: `.*\[error invalid-value\]`/);
    // The new file's jitter is refused, so no-jitter was not checked there: the old warning is
    // not gone, only unseen.
    expect(result.out).not.toContain('Resolved:');
    expect(result.out).not.toContain('no-jitter');
    expect(result.out).toContain(
      '_1 finding of the old side not checked again: the new side has errors there._',
    );
    // The way back: the old side is the broken one, and the fix resolves its error.
    const back = await cli('diff', broken, 'policies/billing.yaml');
    expect(back.code).toBe(0);
    expect(back.out).toContain(`Before: (no plan: errors) in \`${broken}\``);
    expect(back.out).toMatch(/Resolved:\n\n- ✖ `billing.yaml`: `.*\[error invalid-value\]`/);
  });

  it('reports added and removed policies between directories', async () => {
    const refunds = BILLING.replace('name: billing.order-placed', 'name: billing.refunds').replace(
      '      queue: billing.order-placed',
      '      queue: billing.refunds',
    );
    const old = dirWith({ 'billing.yaml': BILLING });
    const next = dirWith({ 'refunds.yaml': refunds });
    const result = await cli('diff', old, next);
    expect(result.out).toContain('**0 changed, 1 added, 1 removed, 0 unchanged');
    expect(result.out).toContain('<summary><code>billing.refunds</code> added');
    expect(row(result.out, 'queue `billing.order-placed` |')).toMatch(/🔴 data loss \| delete \|/);
    mkdirSync(join(next, 'empty'));
    expect((await cli('diff', join(next, 'empty'), join(next, 'empty'))).out).toContain(
      '**No changes**: 0 policies',
    );
  });

  it.each([
    ['old', (missing: string) => [missing, 'policies/billing.yaml']],
    ['new', (missing: string) => ['policies/billing.yaml', missing]],
    ['both', (missing: string) => [missing, missing.replace('gone', 'also-gone')]],
  ])('a missing %s side is a coded error, exit 1, and no comment', async (_side, sides) => {
    const missing = join(mkdtempSync(join(tmpdir(), 'rt-diff-')), 'gone', 'billing.yaml');
    const argv = sides(missing);
    const result = await cli('diff', ...argv);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    for (const path of argv.filter((each) => each !== 'policies/billing.yaml'))
      expect(result.err).toContain(
        `${path} (document): cannot read the file (ENOENT) [error file-unreadable]`,
      );
    expect(result.err).toMatch(/✖ cannot diff: .* cannot be read$/);
    expect(result.err).not.toMatch(/\n\s+at /);
  });

  it('says what it wants for a wrong number of sides, and where the options are', async () => {
    const result = await cli('diff', 'policies');
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      '✖ diff compares two sides, <old> and <new>; got 1\n  retry-topology diff --help shows every option',
    );
  });
});
