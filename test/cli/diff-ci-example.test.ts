import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMENT_MARKER } from '../../cli/diff/markdown';
import { cli } from './cli-harness';

// The GitHub workflows in examples/ci cannot run here; the commands they call can. Each
// `npx retry-topology …` line is run against this repository, the base branch standing in as HEAD.

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

const load = (name: string) => parse(readFileSync(`examples/ci/${name}`, 'utf8')) as Workflow;
const steps = (workflow: Workflow) => Object.values(workflow.jobs).flatMap((job) => job.steps);

function commands(workflow: Workflow): string[][] {
  return steps(workflow)
    .flatMap((step) => (step.run ?? '').split('\n'))
    .map((line) => /npx retry-topology (.*?)(?: >.*)?$/.exec(line.trim())?.[1])
    .filter((line): line is string => Boolean(line))
    .map((line) =>
      line
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub Actions expression, not a JS template
        .replace('${{ github.base_ref }}', 'main')
        .replace('git:origin/main:', 'git:HEAD:')
        .split(' ')
        .map((word) => word.replace(/^"|"$/g, '')),
    );
}

describe('examples/ci/retry-policy-review.yml', () => {
  const workflow = load('retry-policy-review.yml');

  it('runs on pull requests and may write the comment', () => {
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
    expect(workflow.permissions['pull-requests']).toBe('write');
    expect(
      steps(workflow).find((step) => step.uses?.startsWith('actions/checkout'))?.with?.['fetch-depth'],
    ).toBe(0);
  });

  it('calls validate and diff the way this CLI takes them', async () => {
    const lines = commands(workflow);
    expect(lines.map((line) => line[0])).toEqual(['validate', 'diff']);
    expect(lines[0]).toEqual(['validate', 'policies', '--format', 'github']);
    expect(lines[1]).toEqual([
      'diff',
      'git:HEAD:policies',
      'policies',
      '--full-report',
      'retry-diff-full.md',
    ]);
    // The full report goes to a temporary file here, not into the repository.
    const report = join(mkdtempSync(join(tmpdir(), 'rt-ci-')), 'retry-diff-full.md');
    for (const argv of lines) {
      const result = await cli(...argv.map((word) => (word === 'retry-diff-full.md' ? report : word)));
      expect(result.code, `${argv.join(' ')}: ${result.err}`).toBe(0);
    }
    expect(readFileSync(report, 'utf8')).toContain(COMMENT_MARKER);
    // The artifact step keeps the file the diff step writes.
    const upload = steps(workflow).find((step) => step.uses?.startsWith('actions/upload-artifact'));
    expect(upload?.with?.path).toBe('retry-diff-full.md');
  });

  it('finds its earlier comment by the marker the diff prints', () => {
    const script = String(
      steps(workflow).find((step) => step.uses?.startsWith('actions/github-script'))?.with?.script,
    );
    expect(script).toContain(`'${COMMENT_MARKER}'`);
  });
});

describe('examples/ci/pulumi.yml', () => {
  const workflow = load('pulumi.yml');

  it('previews pull requests and runs up on main only', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
    const pulumi = (job: string) =>
      workflow.jobs[job]?.steps.find((step) => step.uses?.startsWith('pulumi/actions'));
    expect(pulumi('preview')?.with?.command).toBe('preview');
    expect(pulumi('up')?.with?.command).toBe('up');
    expect(String((workflow.jobs.up as unknown as { if: string }).if)).toContain(
      "github.ref == 'refs/heads/main'",
    );
  });

  it('validates the policies before Pulumi reads them', async () => {
    const lines = commands(workflow);
    expect(lines).toEqual([
      ['validate', 'policies'],
      ['validate', 'policies'],
    ]);
    expect((await cli('validate', 'policies')).code).toBe(0);
  });
});
