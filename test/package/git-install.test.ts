import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * Installing from git, as teams install a package before (or instead of) a registry release:
 * `npm install git+https://…/retry-topology.git#<tag>`. npm runs `prepare` for a git dependency
 * (after installing its dev dependencies), not `prepack`, so without `prepare` it installed no
 * dist/ and no bin and still exited 0. Here from a file:// URL of this repository at HEAD, which
 * npm fetches the same way.
 */
const root = process.cwd();
const work = mkdtempSync(join(tmpdir(), 'rt-git-install-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm install from git', () => {
  it('builds dist/, installs the bin, and the package loads', () => {
    const commit = execFileSync('git', ['-C', root, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'git-consumer', private: true }));
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', `git+file://${root}#${commit}`],
      { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const installed = join(work, 'node_modules', 'retry-topology');
    expect(existsSync(join(installed, 'dist', 'cli', 'main.js'))).toBe(true);
    const bin = join(work, 'node_modules', '.bin', 'retry-topology');
    expect(execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim()).toBe(version);
    const loaded = execFileSync(
      process.execPath,
      ['-e', "console.log(typeof require('retry-topology').derivePlan)"],
      { cwd: work, encoding: 'utf8' },
    );
    expect(loaded.trim()).toBe('function');
  });
});
