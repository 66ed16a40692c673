import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * `npm pack` of a fresh clone of the committed HEAD, as a release would be made: nothing built or
 * left over in the working tree can reach the tarball, and the package's own `prepack` must
 * build dist/. The clone shares the working tree's node_modules (the same lockfile) instead of
 * installing 600 MB again. Tarballs are cached by commit under ~/.cache/retry-topology/package,
 * so a second run on the same commit packs nothing.
 */

const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'retry-topology', 'package');
const KEEP = 6;

function git(root: string, ...args: string[]): string {
  return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
}

export interface Packed {
  tarball: string;
  commit: string;
  /** True when the working tree has changes the tarball does not hold. */
  uncommitted: boolean;
}

export function packFreshClone(root: string): Packed {
  const commit = git(root, 'rev-parse', 'HEAD');
  const uncommitted = git(root, 'status', '--porcelain', '--untracked-files=no') !== '';
  const dir = join(CACHE, commit);
  const cached = existsSync(dir) ? readdirSync(dir).find((name) => name.endsWith('.tgz')) : undefined;
  if (cached) return { tarball: join(dir, cached), commit, uncommitted };

  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'rt-pack-'));
  try {
    const clone = join(work, 'clone');
    execFileSync('git', ['clone', '--quiet', '--shared', '--no-checkout', root, clone]);
    git(clone, 'checkout', '--quiet', '--detach', commit);
    symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'), 'dir');
    const out = join(work, 'out');
    mkdirSync(out);
    execFileSync('npm', ['pack', '--silent', '--pack-destination', out], {
      cwd: clone,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    // Written under a temporary name and renamed, so a concurrent run never sees half a tarball.
    const staged = `${dir}.${process.pid}`;
    renameSync(out, staged);
    try {
      renameSync(staged, dir);
    } catch {
      rmSync(staged, { recursive: true, force: true }); // another run got there first
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  prune();
  const name = readdirSync(dir).find((entry) => entry.endsWith('.tgz'));
  if (!name) throw new Error(`npm pack left no tarball in ${dir}`);
  return { tarball: join(dir, name), commit, uncommitted };
}

/** Keeps the newest few commits' tarballs. */
function prune(): void {
  const entries = readdirSync(CACHE)
    .map((name) => ({ path: join(CACHE, name), at: statSync(join(CACHE, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of entries.slice(KEEP)) rmSync(old.path, { recursive: true, force: true });
}
