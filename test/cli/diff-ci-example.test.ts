import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMENT_MARKER } from '../../cli/diff/markdown';
import { type Job, load, steps, text, type Workflow } from './ci-workflow';
import { BILLING, cli } from './cli-harness';

// The GitHub workflows in examples/ci cannot run here; the commands they call can. Each
// `npx retry-topology …` line is run against this repository, the base branch standing in as HEAD.

interface Comment {
  id: number;
  body: string;
  user: { login: string; type: 'User' | 'Bot' };
}

/**
 * Runs a workflow's github-script as the action does (an async function body given `github`,
 * `context` and `require`), against a pull request holding `comments`, the artifact holding
 * `file`. Returns what it wrote: an update names the comment, a create has none.
 */
async function postComment(
  script: string,
  file: string,
  comments: Comment[],
): Promise<Array<{ comment_id?: number; body: string }>> {
  const calls: Array<{ comment_id?: number; body: string }> = [];
  const listComments = () => undefined;
  const github = {
    paginate: async (method: unknown) => (method === listComments ? comments : []),
    rest: {
      issues: {
        listComments,
        updateComment: async ({ comment_id, body }: { comment_id: number; body: string }) =>
          calls.push({ comment_id, body }),
        createComment: async ({ body }: { body: string }) => calls.push({ body }),
      },
    },
  };
  const context = { repo: { owner: 'acme', repo: 'orders' }, payload: { pull_request: { number: 7 } } };
  const fakeRequire = (name: string) => {
    if (name !== 'node:fs') throw new Error(`the script requires ${name}`);
    return { readFileSync: () => file };
  };
  const run = new Function('github', 'context', 'require', `return (async () => {\n${script}\n})();`);
  await run(github, context, fakeRequire);
  return calls;
}

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rt-ci-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/**
 * The CLI as installed, by `npx --no` (never a download) or by the path npm installs it at; then
 * its arguments, up to a redirection.
 */
const RETRY_TOPOLOGY = /(?:^npx --no |\/node_modules\/\.bin\/)retry-topology"? (.*?)(?: >.*)?$/;

/** Each `retry-topology …` line's words, with the workflow's variables put in. */
function commands(workflow: Workflow): string[][] {
  const policies = workflow.env?.POLICIES ?? '';
  return steps(workflow)
    .flatMap((step) => (step.run ?? '').split('\n'))
    .map((line) => RETRY_TOPOLOGY.exec(line.trim())?.[1])
    .filter((line): line is string => Boolean(line))
    .map((line) =>
      line
        .replace('$BASE_REF', 'main')
        .replaceAll('$POLICIES', policies)
        .replace('git:origin/main:', 'git:HEAD:')
        .split(' ')
        .map((word) => word.replace(/^"|"$/g, '')),
    );
}

const script = (workflow: Workflow) =>
  String(steps(workflow).find((step) => step.uses?.startsWith('actions/github-script'))?.with?.script);

describe.each([
  ['retry-policy-review.yml', `${COMMENT_MARKER}\n### retry-topology diff`],
  ['pulumi.yml', '<!-- pulumi preview: acme/orders/prod -->\n### `pulumi preview`'],
])('examples/ci/%s, posting its comment', (name, body) => {
  const marker = body.split('\n')[0] ?? '';
  const bot = { login: 'github-actions[bot]', type: 'Bot' } as const;
  const person = { login: 'octocat', type: 'User' } as const;
  const otherBot = { login: 'renovate[bot]', type: 'Bot' } as const;

  it("updates its own earlier comment, found by the bot's name and the marker", async () => {
    const comments = [
      { id: 1, body: `${marker}\nquoted by a reviewer`, user: person },
      { id: 2, body: `${marker}\nquoted by another bot`, user: otherBot },
      { id: 3, body: 'an unrelated comment', user: bot },
      { id: 4, body: `${marker}\nthe earlier run`, user: bot },
    ];
    expect(await postComment(script(load(name)), body, comments)).toEqual([{ comment_id: 4, body }]);
  });

  it('posts a new comment when only someone else wrote one with the marker', async () => {
    const comments = [
      { id: 1, body: `${marker}\npasted by a reviewer`, user: person },
      { id: 2, body: `${marker}\npasted by another bot`, user: otherBot },
    ];
    expect(await postComment(script(load(name)), body, comments)).toEqual([{ body }]);
  });
});

describe('examples/ci/retry-policy-review.yml', () => {
  const workflow = load('retry-policy-review.yml');

  it('runs on every pull request and fetches the history the diff reads', () => {
    expect(Object.keys(workflow.on)).toEqual(['pull_request']);
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
      '--allow-missing-old',
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
    // …and the comment, which the job that may write comments posts from the artifact.
    expect(String(upload?.with?.path).trim().split('\n')).toEqual(['retry-diff.md', 'retry-diff-full.md']);
  });

  it('fails on new errors only: validate annotates, the diff decides', async () => {
    const review = workflow.jobs.review as Job;
    const validate = review.steps.find((step) => step.run?.includes('retry-topology validate'));
    expect(validate?.['continue-on-error']).toBe(true);
    const gate = review.steps.at(-1);
    expect(gate?.if).toContain("steps.diff.outputs.exit != '0'");
    expect(gate?.run).toContain('exit 1');
    // What the two commands do with an error the base branch already has, and with a new one.
    const broken = BILLING.replace('messageTtl: 1h', 'messageTtl: 5s');
    const base = dirWith({ 'billing.yaml': broken });
    const head = dirWith({ 'billing.yaml': broken.replace('initial: 1s', 'initial: 2s') });
    expect((await cli('validate', head)).code).toBe(1);
    expect((await cli('diff', base, head)).code).toBe(0);
    expect((await cli('diff', dirWith({ 'billing.yaml': BILLING }), head)).code).toBe(1);
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

describe.each(['retry-policy-review.yml', 'pulumi.yml'])(
  'examples/ci/%s, as a team would copy it',
  (name) => {
    const workflow = load(name);
    const jobs = Object.entries(workflow.jobs);

    it('pins every action to a full commit SHA, with its release tag in a comment', () => {
      const uses = text(name)
        .split('\n')
        .filter((line) => /^\s*-?\s*uses:/.test(line));
      expect(uses.length).toBeGreaterThan(0);
      for (const line of uses) expect(line).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
    });

    it('grants nothing by default, and each job only what it needs', () => {
      expect(workflow.permissions).toEqual({});
      for (const [id, job] of jobs) {
        expect(job.permissions, id).toBeDefined();
        const writes = Object.entries(job.permissions ?? {}).filter(([, level]) => level === 'write');
        const runsCode = job.steps.some(
          (step) => step.run !== undefined || step.uses?.startsWith('actions/checkout'),
        );
        // A job that checks out or runs the PR's code gets no write permission (id-token aside).
        if (runsCode)
          expect(
            writes.filter(([scope]) => scope !== 'id-token'),
            id,
          ).toEqual([]);
      }
    });

    it('posts PR comments from a job that runs nothing of the PR, and never for a fork', () => {
      const commenting = jobs.filter(([, job]) => job.permissions?.['pull-requests'] === 'write');
      expect(commenting.length).toBe(1);
      for (const [, job] of commenting) {
        expect(
          job.steps.filter((step) => step.run !== undefined || step.uses?.startsWith('actions/checkout')),
        ).toEqual([]);
        expect(job.steps.map((step) => step.uses?.split('@')[0])).toEqual([
          'actions/download-artifact',
          'actions/github-script',
        ]);
      }
      // Forks: the review gates without a comment; the preview job says why it did not run.
      expect(text(name)).toContain('github.event.pull_request.head.repo.full_name');
    });

    it('names the policies once, in the POLICIES variable, and every command reads it', () => {
      expect(workflow.env?.POLICIES).toBe('policies');
      const runs = steps(workflow).flatMap((step) => (step.run ?? '').split('\n'));
      const reading = runs.filter((line) => RETRY_TOPOLOGY.test(line.trim()) || /git diff /.test(line));
      expect(reading.length).toBeGreaterThan(0);
      for (const line of reading) {
        expect(line).toContain('"$POLICIES"');
        expect(line.replaceAll('$POLICIES', '')).not.toMatch(/\bpolicies\b/);
      }
    });

    it('can be a required check: no path filter leaves it pending', () => {
      expect(workflow.on.pull_request ?? {}).not.toHaveProperty('paths');
      expect(workflow.on.pull_request ?? {}).not.toHaveProperty('paths-ignore');
    });

    it('puts no expression into a shell script (values reach scripts through the environment)', () => {
      for (const step of Object.values(workflow.jobs).flatMap((job) => job.steps))
        expect(step.run ?? '').not.toContain('${{');
    });
  },
);

describe('examples/ci/pulumi.yml and the Pulumi program it runs', () => {
  const workflow = load('pulumi.yml');
  const program = workflow.env?.PULUMI_PROGRAM ?? '';
  /** The expression that puts the variable into an action's input. */
  const inProgram = ['$', '{{ env.PULUMI_PROGRAM }}'].join('');

  it('runs examples/pulumi-program, copied to PULUMI_PROGRAM, and the CLI that program installs', () => {
    expect(program).not.toBe('');
    const all = steps(workflow);
    expect(all.filter((step) => step.run === 'npm ci').map((step) => step['working-directory'])).toEqual([
      inProgram,
      inProgram,
    ]);
    const pulumi = all.filter((step) => step.uses?.startsWith('pulumi/actions'));
    expect(pulumi.map((step) => step.with?.['work-dir'])).toEqual([inProgram, inProgram]);
    for (const line of all
      .flatMap((step) => (step.run ?? '').split('\n'))
      .filter((each) => RETRY_TOPOLOGY.test(each.trim())))
      expect(line.trim()).toMatch(/^"\$PULUMI_PROGRAM\/node_modules\/\.bin\/retry-topology" /);
  });

  it('passes no broker settings through the environment: the program reads them from stack config', () => {
    const index = readFileSync('examples/pulumi-program/index.ts', 'utf8');
    // Only where the policies are: the workflow's POLICIES, from the repository root.
    const read = [...index.matchAll(/process\.env\.(\w+)/g)].map((match) => match[1]);
    expect([...new Set(read)].sort()).toEqual(['GITHUB_WORKSPACE', 'POLICIES']);
    expect(text('pulumi.yml')).not.toMatch(/RABBITMQ_|KAFKA_/);
  });
});
