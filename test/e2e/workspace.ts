import { randomBytes } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { parseDocument } from 'yaml';
import { type Engine, type RunResult, requiredPlugins, runPulumi } from './engine';

/**
 * A private copy of the project for one stack of an e2e run, outside the repository
 * (<run> is RETRY_TOPOLOGY_E2E_DIR when scripts/pulumi-e2e.sh gives one, else a temp directory):
 *
 *   <run>/<stack>/project/         every top-level entry of the repository as a symlink, except stacks/
 *   <run>/<stack>/project/stacks/  Pulumi.<stack>.yaml: a repository stack file's config (the local
 *                                  brokers; the stack's own or the one it names), edited by the test if it asks, with the policy files
 *                                  replaced by prefixed copies and the password set as a secret
 *   <run>/<stack>/policies/        those copies: every broker name starts with a random prefix, so
 *                                  runs never collide with each other or with other tests
 *   <run>/<stack>/state/           the file backend (PULUMI_BACKEND_URL)
 *   <run>/<stack>/home/            PULUMI_HOME, when the plugins come from a scripts/pulumi-engine.sh build
 *   <run>/<stack>/pulumi.env       the environment above, <run>/<stack>/stack and .../prefix: for the
 *                                  cleanup trap of scripts/pulumi-e2e.sh (unprotect, destroy, sweep.ts)
 *
 * Why a copy: `pulumi stack init` and `pulumi config set` rewrite stacks/Pulumi.<stack>.yaml (they
 * add the encryption salt and the secret, and turn `false` into `"false"`), and the run must leave
 * no trace in the repository.
 */

/** The repository's stack whose config (the local brokers) an e2e stack starts from by default. */
export const STACK = 'ci';

export interface WorkspaceOptions {
  /** The stack's name; also the workspace's directory under the run's. Default `ci`. */
  stack?: string;
  /** The repository's stack file the stack's config starts from: stacks/Pulumi.<config>.yaml.
   * Default: the stack's own. */
  config?: string;
  /** Edits the copy of that stack file before the stack is created. */
  editConfig?: (config: ReturnType<typeof parseDocument>) => void;
}
/** Generous: a `pulumi up` takes 5–15 s here, and CI machines are loaded. */
const COMMAND_TIMEOUT_MS = 240_000;

export interface Workspace {
  dir: string;
  stack: string;
  project: string;
  prefix: string;
  /** Prefixed copies of the ci stack's policy files, in its order. */
  policyFiles: string[];
  env: NodeJS.ProcessEnv;
  pulumi(args: readonly string[], timeoutMs?: number): Promise<RunResult>;
  /** Writes a policy copy (e.g. with other delays); `restore` puts the prefixed original back. */
  editPolicy(index: number, edit: (doc: ReturnType<typeof parseDocument>) => void): void;
  restorePolicy(index: number): void;
}

/** Prefixes every broker name a policy produces (entity names derive from these fields). */
export function prefixPolicy(text: string, prefix: string): string {
  const doc = parseDocument(text);
  const paths = [
    ['metadata', 'name'],
    ['spec', 'deadLetter', 'name'],
    ['spec', 'targets', 'rabbitmq', 'queue'],
    ['spec', 'targets', 'rabbitmq', 'exchange'],
    ['spec', 'targets', 'kafka', 'topic'],
    ['spec', 'targets', 'kafka', 'consumerGroup'],
  ];
  for (const path of paths) {
    const value = doc.getIn(path);
    if (typeof value === 'string') doc.setIn(path, `${prefix}.${value}`);
  }
  return doc.toString();
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

export async function createWorkspace(
  engine: Engine,
  root: string,
  options: WorkspaceOptions = {},
): Promise<Workspace> {
  const stack = options.stack ?? STACK;
  const given = process.env.RETRY_TOPOLOGY_E2E_DIR;
  const dir = join(given || mkdtempSync(join(tmpdir(), 'retry-topology-e2e-')), stack);
  try {
    return await populate(engine, root, dir, stack, options);
  } catch (error) {
    // Nothing is provisioned before the workspace exists: the directory can go.
    rmSync(given ? dir : dirname(dir), { recursive: true, force: true });
    throw error;
  }
}

async function populate(
  engine: Engine,
  root: string,
  dir: string,
  stack: string,
  options: WorkspaceOptions,
): Promise<Workspace> {
  const project = join(dir, 'project');
  const prefix = `e2e-${randomBytes(3).toString('hex')}`;
  mkdirSync(join(project, 'stacks'), { recursive: true });
  mkdirSync(join(dir, 'policies'));
  mkdirSync(join(dir, 'state'));
  writeFileSync(join(dir, 'prefix'), prefix);
  writeFileSync(join(dir, 'stack'), stack);
  for (const entry of readdirSync(root)) {
    if (entry === 'stacks' || entry === '.git' || entry === '.pulumi') continue;
    symlinkSync(join(root, entry), join(project, entry));
  }

  const from = options.config ?? stack;
  const config = parseDocument(readFileSync(join(root, 'stacks', `Pulumi.${from}.yaml`), 'utf8'));
  options.editConfig?.(config);
  const listed: unknown = (config.toJS() as { config?: Record<string, unknown> }).config?.[
    'retry-topology:policies'
  ];
  if (!Array.isArray(listed)) throw new Error(`stacks/Pulumi.${from}.yaml lists no retry-topology:policies`);
  const originals = (listed as string[]).map((file) =>
    prefixPolicy(readFileSync(isAbsolute(file) ? file : join(root, file), 'utf8'), prefix),
  );
  const policyFiles = (listed as string[]).map((file, index) =>
    join(dir, 'policies', `${index}-${basename(file)}`),
  );
  for (const [index, file] of policyFiles.entries()) writeFileSync(file, originals[index] ?? '');
  // The program takes absolute policy paths as they are (infra/plans.ts).
  config.setIn(['config', 'retry-topology:policies'], policyFiles);
  writeFileSync(join(project, 'stacks', `Pulumi.${stack}.yaml`), config.toString());

  const pulumiEnv: Record<string, string> = {
    PULUMI_BACKEND_URL: `file://${join(dir, 'state')}`,
    // The file backend encrypts the stack's secrets with it; the state is thrown away after the run.
    PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? randomBytes(12).toString('hex'),
    PULUMI_SKIP_UPDATE_CHECK: 'true',
    ...(engine.pluginDir ? { PULUMI_HOME: join(dir, 'home'), PULUMI_IGNORE_AMBIENT_PLUGINS: 'true' } : {}),
  };
  writeFileSync(
    join(dir, 'pulumi.env'),
    Object.entries({ ...pulumiEnv, RETRY_TOPOLOGY_PULUMI: engine.pulumi })
      .map(([key, value]) => `export ${key}=${shellQuote(value)}\n`)
      .join(''),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, ...pulumiEnv };
  delete env.PULUMI_ACCESS_TOKEN;
  const pulumi = (args: readonly string[], timeoutMs = COMMAND_TIMEOUT_MS) =>
    runPulumi(engine, [...args, '--non-interactive'], { cwd: project, env, timeoutMs });

  if (engine.pluginDir) {
    // Version-checked plugins from our build, never a download and never whatever is on PATH.
    for (const { name, version } of requiredPlugins()) {
      await pulumi([
        'plugin',
        'install',
        'resource',
        name,
        version,
        '--file',
        join(engine.pluginDir, `pulumi-resource-${name}`),
      ]);
    }
  }
  await pulumi(['stack', 'init', stack]);
  await pulumi(['config', 'set', '--secret', 'rabbitmq:password', 'guest', '--stack', stack]);

  return {
    dir,
    stack,
    project,
    prefix,
    policyFiles,
    env,
    pulumi,
    editPolicy: (index, edit) => {
      const doc = parseDocument(originals[index] ?? '');
      edit(doc);
      writeFileSync(policyFiles[index] ?? '', doc.toString());
    },
    restorePolicy: (index) => writeFileSync(policyFiles[index] ?? '', originals[index] ?? ''),
  };
}

/**
 * `clean`: nothing of the run is left on the brokers. Then the run is marked, so
 * scripts/pulumi-e2e.sh's trap does not destroy again, and the directory goes unless the script
 * owns it. Otherwise the state stays, to destroy by hand.
 */
export function finishWorkspace(workspace: Workspace, clean: boolean): void {
  if (!clean) {
    console.error(
      `the stack's state stays in ${workspace.dir} (docs/contributing/pulumi-e2e.md: cleaning up by hand)`,
    );
    return;
  }
  writeFileSync(join(workspace.dir, 'destroyed'), '');
  if (!process.env.RETRY_TOPOLOGY_E2E_DIR) rmSync(dirname(workspace.dir), { recursive: true, force: true });
}
