import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { load } from './ci-workflow';
import { BILLING } from './cli-harness';

// The review workflow's "did the policies change?" step, run by bash in a throwaway repository
// whose origin/main is the base branch, as the checkout action leaves it with fetch-depth 0.

const workflow = load('retry-policy-review.yml');
const changedStep = workflow.jobs.review?.steps.find((step) => step.run?.includes('changed='));
let repo = '';

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], {
    cwd: repo,
    stdio: 'ignore',
  });
}

function commit(files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(repo, path, '..'), { recursive: true });
    writeFileSync(join(repo, path), content);
  }
  git('add', '.');
  git('commit', '--quiet', '--allow-empty', '-m', 'change');
}

/** Runs the step with the workflow's environment; returns its exit status and what it wrote. */
function runChanged(policies = workflow.env?.POLICIES ?? '') {
  const output = join(repo, '..', 'output');
  const summary = join(repo, '..', 'summary');
  writeFileSync(output, '');
  writeFileSync(summary, '');
  const result = spawnSync('bash', ['-e', '-c', changedStep?.run ?? 'exit 99'], {
    cwd: repo,
    encoding: 'utf8',
    env: {
      ...process.env,
      POLICIES: policies,
      BASE_REF: 'main',
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
    },
  });
  return { code: result.status, stdout: result.stdout, output: readFileSync(output, 'utf8') };
}

beforeEach(() => {
  const dir = mkdtempSync(join(tmpdir(), 'rt-review-steps-'));
  repo = join(dir, 'repo');
  mkdirSync(repo);
  git('init', '--quiet', '--initial-branch', 'main');
  commit({ 'README.md': 'a service\n' });
  return () => rmSync(dir, { recursive: true, force: true });
});

/** The pull request's branch: what is committed now is the base, origin/main. */
function branch(): void {
  git('update-ref', 'refs/remotes/origin/main', 'HEAD');
  git('checkout', '--quiet', '-b', 'change');
}

describe('examples/ci/retry-policy-review.yml, "did the policies change?"', () => {
  it('is the step the review hangs on', () => {
    expect(changedStep?.run).toContain('"$POLICIES"');
  });

  it('reviews the pull request that adds the first policies', () => {
    branch();
    commit({ 'policies/billing.yaml': BILLING });
    expect(runChanged()).toMatchObject({ code: 0, output: 'changed=true\n' });
  });

  it('passes at once when the policies did not change', () => {
    commit({ 'policies/billing.yaml': BILLING });
    branch();
    commit({ 'README.md': 'a service, documented\n' });
    expect(runChanged()).toMatchObject({ code: 0, output: 'changed=false\n' });
  });

  it('fails on a POLICIES path in neither branch, naming it, instead of passing with nothing read', () => {
    commit({ 'policies/billing.yaml': BILLING });
    branch();
    commit({ 'policies/billing.yaml': BILLING.replace('initial: 1s', 'initial: 2s') });
    const result = runChanged('polices');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      '::error::POLICIES is polices, which is neither in the pull request nor on main',
    );
    expect(result.output).toBe('');
  });
});
