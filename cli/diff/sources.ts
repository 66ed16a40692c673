import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { type Issue, type LoadedPolicy, loadPolicyFiles } from '../../policy';
import { expandInputs } from '../inputs';
import { parseGitSource, readGitSource } from './git';

/**
 * One side of a diff: a file, a directory, or `git:<rev>:<path>`. Every side goes through the
 * same loader as `validate` (loadPolicyFiles), so a diff sees exactly the findings validate
 * would. A git side is written to a temporary directory for that, and its file names are put
 * back to `git:<rev>:<path>` in what it returns.
 */

export interface Side {
  spec: string;
  policies: LoadedPolicy[];
  issues: Issue[];
  /** Shown under the heading: why a side is empty, for example. */
  note?: string;
}

/** The name a finding without a policy is filed under: its file's name, the same on both sides. */
export function fileKey(file: string | undefined): string {
  return file ? basename(file.replace(/^git:[^:]+:/, '')) : '';
}

async function loadGit(spec: string, rev: string, path: string): Promise<Side> {
  const files = await readGitSource(rev, path);
  if (!files)
    return { spec, policies: [], issues: [], note: `${path} does not exist at ${rev}: every policy is new` };
  const dir = await mkdtemp(join(tmpdir(), 'retry-topology-diff-'));
  try {
    const names = new Map<string, string>();
    const written: string[] = [];
    for (const [index, file] of files.entries()) {
      // An index keeps two files of the same name in different directories apart.
      const local = join(dir, `${index}-${basename(file.path)}`);
      await writeFile(local, file.text);
      names.set(local, `git:${rev}:${file.path}`);
      written.push(local);
    }
    const loaded = await loadPolicyFiles(written);
    const rename = (file: string) => names.get(file) ?? file;
    return {
      spec,
      policies: loaded.policies.map((each) => ({ ...each, file: rename(each.file) })),
      issues: loaded.issues.map((each) => (each.file ? { ...each, file: rename(each.file) } : each)),
      ...(files.length === 0 ? { note: `no policy files in ${path} at ${rev}` } : {}),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function loadSide(spec: string): Promise<Side> {
  const git = parseGitSource(spec);
  if (git) return loadGit(spec, git.rev, git.path);
  const loaded = await loadPolicyFiles(await expandInputs([spec]));
  return { spec, ...loaded };
}
