import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BILLING, cli } from './cli-harness';

// A throwaway repository: policies/billing.yaml committed, then changed in the working tree.
// git sources are read relative to the current directory's repository, as in CI.
const home = process.cwd();
let repo = '';

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
    cwd: repo,
    encoding: 'utf8',
  });
}

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'rt-diff-git-'));
  git('init', '--quiet', '--initial-branch', 'main');
  mkdirSync(join(repo, 'policies'));
  writeFileSync(join(repo, 'policies', 'billing.yaml'), BILLING);
  writeFileSync(join(repo, 'policies', 'notes.txt'), 'not a policy');
  git('add', '.');
  git('commit', '--quiet', '-m', 'billing policy');
  writeFileSync(join(repo, 'policies', 'billing.yaml'), BILLING.replace('initial: 1s', 'initial: 2s'));
  process.chdir(repo);
});

afterAll(() => process.chdir(home));

describe('retry-topology diff with git sources', () => {
  it('diffs git:HEAD:policies against the working tree', async () => {
    const result = await cli('diff', 'git:HEAD:policies', 'policies');
    expect(result.code).toBe(0);
    expect(result.out).toContain('`git:HEAD:policies` → `policies`');
    expect(result.out).toContain('<summary><code>billing.order-placed</code> changed');
    expect(result.out).toContain('| 2 | 1s | **2s** |');
    expect(result.out).toContain('policy updated in place: message-ttl `1000` → `2000`');
    // The no-jitter warning is on both sides: matched across a revision and the working tree.
    expect(result.out).toContain('_No new or resolved findings (1 finding unchanged)._');
  });

  it('reads a single file at a revision and matches it to itself', async () => {
    git('stash', '--quiet');
    try {
      const result = await cli('diff', 'git:HEAD:policies/billing.yaml', 'policies/billing.yaml');
      expect(result.code).toBe(0);
      expect(result.out).toContain('**No changes**');
    } finally {
      git('stash', 'pop', '--quiet');
    }
  });

  it('refuses a path missing at the revision, naming it: a typo is not an empty side', async () => {
    const result = await cli('diff', 'git:HEAD:polices', 'policies');
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      '✖ git:HEAD:polices: no file or directory polices at HEAD (the path is from the repository root, or ./path from here); if it is the base of the change that adds the first policies, pass --allow-missing-old',
    );
    expect(result.out).toBe('');
  });

  it('treats a missing <old> path as empty with --allow-missing-old: every policy is new', async () => {
    const result = await cli('diff', 'git:HEAD:retry-policies', 'policies', '--allow-missing-old');
    expect(result.code).toBe(0);
    expect(result.out).toContain('`retry-policies` does not exist at `HEAD`: every policy is new');
    expect(result.out).toContain('<summary><code>billing.order-placed</code> added');
  });

  it('refuses a missing <new> path, --allow-missing-old or not', async () => {
    for (const flags of [[], ['--allow-missing-old']]) {
      const result = await cli('diff', 'policies', 'git:HEAD:polices', ...flags);
      expect(result.code).toBe(2);
      expect(result.err).toContain('✖ git:HEAD:polices: no file or directory polices at HEAD');
      expect(result.err).not.toContain('--allow-missing-old');
      expect(result.out).toBe('');
    }
  });

  it('names an unknown revision clearly, without a stack trace', async () => {
    const result = await cli('diff', 'git:origin/nope:policies', 'policies');
    expect(result.code).toBe(2);
    expect(result.err).toContain('unknown revision "origin/nope"');
    expect(result.err).toContain('git fetch origin nope');
    expect(result.err).not.toMatch(/\n\s+at /);
    expect(result.out).toBe('');
  });
});
