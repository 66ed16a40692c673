import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * scripts/build-if-stale.mjs, which `npm start` runs first: it builds only when dist/ is older
 * than a source. Run in a project of its own whose "build" counts its runs, and writes the build
 * info only when there is none (as tsc, which leaves it alone when nothing changed).
 */

const SCRIPT = resolve('scripts/build-if-stale.mjs');

const BUILD = `
const fs = require('node:fs');
fs.appendFileSync('builds.log', 'built\\n');
fs.mkdirSync('dist/cli', { recursive: true });
fs.writeFileSync('dist/cli/main.js', '');
if (!fs.existsSync('dist/.tsbuildinfo')) fs.writeFileSync('dist/.tsbuildinfo', '{}');
if (process.env.FAIL_BUILD) process.exit(2);
`;

function project(): string {
  const root = mkdtempSync(join(tmpdir(), 'rt-start-'));
  const files: Record<string, string> = {
    'package.json': JSON.stringify({
      name: 'start-check',
      private: true,
      scripts: { build: 'node build.cjs' },
    }),
    'tsconfig.json': '{}',
    'tsconfig.build.json': '{\n  // Comments, as tsconfig files have them.\n  "include": ["src"]\n}\n',
    'build.cjs': BUILD,
    'src/a.ts': 'export const a = 1;\n',
  };
  mkdirSync(join(root, 'src'));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  for (const path of [...Object.keys(files), 'src']) age(root, path, 1000);
  return root;
}

/** Sets a path's modification time `seconds` before now. */
function age(root: string, path: string, seconds: number): void {
  const when = Date.now() / 1000 - seconds;
  utimesSync(join(root, path), when, when);
}

function start(root: string, env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [SCRIPT], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  const log = join(root, 'builds.log');
  const builds = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, builds };
}

describe('npm start builds dist/ only when it is older than the sources', () => {
  it('builds a project that has no dist/, then not again until a source changes', () => {
    const root = project();
    const first = start(root);
    expect(first).toMatchObject({ status: 0, builds: 1, stdout: '' });
    expect(first.stderr).toContain('dist/ is not built: npm run build');
    // Nothing changed: no build, and nothing printed.
    expect(start(root)).toEqual({ status: 0, stdout: '', stderr: '', builds: 1 });

    // A source saved after the build.
    age(root, 'dist/.tsbuildinfo', 500);
    age(root, 'src/a.ts', 400);
    const edited = start(root);
    expect(edited).toMatchObject({ status: 0, builds: 2 });
    expect(edited.stderr).toContain('src changed since the last build');
    // The build left its info alone (nothing to emit); the script marked it current all the same.
    expect(start(root).builds).toBe(2);

    // A file added (or removed): its folder's time says so, whatever the file's own.
    writeFileSync(join(root, 'src/b.ts'), 'export const b = 2;\n');
    age(root, 'src/b.ts', 1000);
    age(root, 'dist/.tsbuildinfo', 500);
    age(root, 'src', 400);
    expect(start(root).builds).toBe(3);

    // A changed tsconfig.
    age(root, 'dist/.tsbuildinfo', 500);
    age(root, 'tsconfig.build.json', 400);
    expect(start(root).builds).toBe(4);
    expect(start(root).builds).toBe(4);
  });

  it('a failed build fails the start, and the next start builds again', () => {
    const root = project();
    expect(start(root).builds).toBe(1);
    age(root, 'dist/.tsbuildinfo', 500);
    age(root, 'src/a.ts', 400);
    expect(start(root, { FAIL_BUILD: '1' })).toMatchObject({ status: 2, builds: 2 });
    // The build wrote its output all the same (as tsc does beside type errors): not current.
    expect(start(root)).toMatchObject({ status: 0, builds: 3 });
    expect(start(root).builds).toBe(3);
  });

  it('builds when it cannot tell: an include that is a pattern, not a folder', () => {
    const root = project();
    expect(start(root).builds).toBe(1);
    writeFileSync(join(root, 'tsconfig.build.json'), '{ "include": ["src/**/*.ts"] }');
    age(root, 'tsconfig.build.json', 1000);
    const result = start(root);
    expect(result.builds).toBe(2);
    expect(result.stderr).toContain('tsconfig.build.json includes more than plain folders');
  });
});
