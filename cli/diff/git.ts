import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { RetryTopologyError } from '../../policy/errors';

/**
 * Policy files as they were at a git revision, read with plain git (no library: git is already
 * there wherever a pull request is reviewed). Paths are git's: from the repository root, or
 * "./path" from the current directory.
 */

const run = promisify(execFile);
/** Policy files are small; a bigger blob is not a policy and should not fill memory. */
const MAX_BUFFER = 16 * 1024 * 1024;
const POLICY_FILE = /\.ya?ml$/i;

/** A `git:` side that git cannot read (no git, an unknown revision, a missing path): exit 2. */
export class GitSourceError extends RetryTopologyError {
  override readonly name: string = 'GitSourceError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('git-source', message, options);
  }
}

export interface GitFile {
  /** The path inside the revision, as given plus the file name for a directory. */
  path: string;
  content: Uint8Array;
  /** Found in a directory (not named): a YAML file there that is not a policy is skipped. */
  found: boolean;
}

async function git(args: string[]): Promise<string> {
  return (await gitBytes(args)).toString('utf8');
}

/** A blob's bytes as they are: the loader decides whether they are UTF-8, as it does for files. */
async function gitBytes(args: string[]): Promise<Buffer> {
  try {
    const { stdout } = await run('git', args, { maxBuffer: MAX_BUFFER, encoding: 'buffer' });
    return stdout;
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT')
      throw new GitSourceError('git is not installed (needed for git: sources)', { cause: error });
    // git's own first "fatal:" line says what is wrong (unknown revision, missing path).
    const line =
      String(failure.stderr ?? '')
        .split('\n')
        .find((each) => each.trim() !== '') ?? failure.message;
    throw new GitSourceError(line.replace(/^fatal:\s*/, '').trim(), { cause: error });
  }
}

/** `git:<rev>:<path>` → rev and path; undefined for anything else. */
export function parseGitSource(spec: string): { rev: string; path: string } | undefined {
  const match = /^git:([^:]+):(.+)$/.exec(spec);
  if (!match?.[1] || !match[2]) return undefined;
  return { rev: match[1], path: match[2].replace(/\/+$/, '') };
}

/**
 * The YAML files at `path` in `rev`: the file itself, or those in the directory and below it.
 * Undefined when the revision exists but the path does not (a pull request adding the first
 * policies has nothing on its base). An unknown revision is an error.
 */
export async function readGitSource(rev: string, path: string): Promise<GitFile[] | undefined> {
  await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]).catch(() => {
    throw new GitSourceError(
      `unknown revision "${rev}" (fetch it first, e.g. git fetch origin ${rev.replace(/^origin\//, '')})`,
    );
  });
  const object = `${rev}:${path}`;
  let type: string;
  try {
    type = (await git(['cat-file', '-t', object])).trim();
  } catch {
    return undefined;
  }
  if (type === 'blob') return [{ path, content: await gitBytes(['cat-file', 'blob', object]), found: false }];
  if (type !== 'tree') throw new GitSourceError(`${object} is a ${type}, not a file or directory`);
  const files: GitFile[] = [];
  // "<mode> <type> <hash>\t<name>" per entry, recursive (-r), names NUL-terminated (-z) so any
  // name survives. The same files a directory on disk gives: node_modules and hidden directories
  // are left out.
  for (const entry of (await git(['ls-tree', '-r', '-z', object])).split('\0')) {
    const [meta, name] = entry.split('\t');
    if (!meta || !name || meta.split(' ')[1] !== 'blob' || !POLICY_FILE.test(name)) continue;
    if (name.split('/').some((part) => part === 'node_modules' || part.startsWith('.'))) continue;
    files.push({
      path: `${path}/${name}`,
      content: await gitBytes(['cat-file', 'blob', `${rev}:${path}/${name}`]),
      found: true,
    });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
