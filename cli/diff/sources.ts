import { basename } from 'node:path';
import { type Issue, type LoadedPolicy, loadPolicyFiles } from '../../policy';
import { loadInputs } from '../load-inputs';
import type { Output } from '../output';
import { GitSourceError, parseGitSource, readGitSource } from './git';

/**
 * One side of a diff: a file, a directory, a glob, `-`, or `git:<rev>:<path>`. Every side goes
 * through the same loader as `validate` (loadPolicyFiles), so a diff sees exactly the findings
 * validate would. A git side's files are named `git:<rev>:<path>`.
 */

export interface Side {
  spec: string;
  policies: LoadedPolicy[];
  issues: Issue[];
  /** Shown under the heading: why a git side is empty. */
  note?: { kind: 'missing' | 'empty'; path: string; rev: string };
}

/** The name a finding without a policy is filed under: its file's name, the same on both sides. */
export function fileKey(file: string | undefined): string {
  return file ? basename(file.replace(/^git:[^:]+:/, '')) : '';
}

export interface SideOptions {
  /**
   * A git side whose path is not at its revision is empty instead of an error: the base of the
   * pull request that adds the first policies. Otherwise a typo in the path would be an empty side
   * that makes every policy look new, and pass.
   */
  allowMissing?: boolean;
  /** Said after the error for a missing path: what to do if it is meant. */
  missingHint?: string;
}

async function loadGit(spec: string, rev: string, path: string, options: SideOptions): Promise<Side> {
  const files = await readGitSource(rev, path);
  if (!files) {
    if (!options.allowMissing)
      throw new GitSourceError(
        `${spec}: no file or directory ${path} at ${rev} (the path is from the repository root, or ./path from here)${options.missingHint ? `; ${options.missingHint}` : ''}`,
      );
    return { spec, policies: [], issues: [], note: { kind: 'missing', path, rev } };
  }
  const loaded = await loadPolicyFiles(
    files.map((file) => ({ file: `git:${rev}:${file.path}`, content: file.content, found: file.found })),
  );
  return {
    spec,
    ...loaded,
    ...(files.length === 0 ? { note: { kind: 'empty' as const, path, rev } } : {}),
  };
}

export async function loadSide(spec: string, output: Output, options: SideOptions = {}): Promise<Side> {
  const git = parseGitSource(spec);
  if (git) return loadGit(spec, git.rev, git.path, options);
  const { policies, issues } = await loadInputs([spec], output);
  return { spec, policies, issues };
}
