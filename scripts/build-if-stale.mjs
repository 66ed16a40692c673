// `npm start` runs the CLI from dist/. `npm run build` takes tens of seconds even when nothing
// changed (tsc loads every declaration the sources import before it finds nothing to emit), so
// this builds only when dist/ is older than what it is built from: a file or folder under
// tsconfig.build.json's "include", tsconfig*.json or package.json modified after the last build.
// On a fresh clone `npm ci` has built dist/ already (the "prepare" script); without dist/ it
// builds. Whenever it cannot tell, it builds.
//
//   node scripts/build-if-stale.mjs      (from the package root, as npm runs scripts)
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';

/** Every build writes it (tsconfig.build.json); its modification time is the build's. */
const STAMP = join('dist', '.tsbuildinfo');
const ENTRY = join('dist', 'cli', 'main.js');
const CONFIGS = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];

/** The folders tsconfig.build.json compiles, or undefined when its "include" is not plain. */
function includedFolders() {
  // tsconfig files hold // comments, which JSON does not: drop the lines that are only one.
  const text = readFileSync('tsconfig.build.json', 'utf8')
    .split('\n')
    .filter((line) => !line.trim().startsWith('//'))
    .join('\n');
  const { include } = JSON.parse(text);
  if (!Array.isArray(include) || !include.every((entry) => /^[\w./-]+$/.test(entry))) return undefined;
  return include;
}

/** True when `path`, or anything under it, was modified after `since` (ms). */
function changedSince(path, since) {
  const stat = statSync(path);
  // A folder's own time changes when a file in it is added, removed or renamed.
  if (stat.mtimeMs > since) return true;
  if (!stat.isDirectory()) return false;
  return readdirSync(path).some((name) => changedSince(join(path, name), since));
}

function stale() {
  if (!existsSync(STAMP) || !existsSync(ENTRY)) return 'dist/ is not built';
  try {
    const built = statSync(STAMP).mtimeMs;
    const folders = includedFolders();
    if (!folders) return 'tsconfig.build.json includes more than plain folders';
    const changed = [...CONFIGS, ...folders].find((path) => changedSince(path, built));
    return changed ? `${changed} changed since the last build` : undefined;
  } catch (error) {
    return `cannot compare dist/ with the sources (${error.message})`;
  }
}

const reason = stale();
if (reason) {
  console.error(`${reason}: npm run build`);
  // Through a shell, as npm runs its scripts: `npm` is npm.cmd on Windows.
  const build = spawnSync('npm run --silent build', { stdio: 'inherit', shell: true });
  if (build.error) console.error(`cannot run npm run build: ${build.error.message}`);
  const status = build.status ?? 1;
  // tsc rewrites its build info only when the build changed something, so after a file is saved
  // unchanged (or checked out again) every start would rebuild: the stamp is set to now. After a
  // failed build it is set far back, so the next start builds again and shows the errors again
  // rather than run what tsc emitted beside them.
  if (existsSync(STAMP)) {
    const when = status === 0 ? new Date() : new Date(0);
    utimesSync(STAMP, when, when);
  }
  process.exit(status);
}
