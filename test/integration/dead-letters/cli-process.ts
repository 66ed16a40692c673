import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const CLI = 'dist/cli/main.js';
const SOURCES = ['cli', 'runtime', 'policy'];

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** The built CLI, as users run it; built here when dist/ is missing or older than the sources. */
export function ensureBuiltCli(): string {
  const built = existsSync(CLI) ? statSync(CLI).mtimeMs : 0;
  if (built < Math.max(...SOURCES.map(newestSource))) {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  }
  return CLI;
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The CLI in a process of its own: a real process, so SIGKILL is a real crash. */
export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { child: ChildProcess; finished: Promise<Finished> } {
  const child = spawn(process.execPath, [CLI, 'dead-letters', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const finished = new Promise<Finished>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, finished };
}

export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return startCli(args, env).finished;
}

/**
 * Runs the CLI and SIGKILLs it once `progressed()` says it has got `after` further than when it
 * started (a random point in the middle of a replay), or when it ends on its own first.
 */
export async function killMidway(
  args: string[],
  progress: () => Promise<number>,
  after: number,
): Promise<{ killed: boolean; finished: Finished; progressAtKill: number }> {
  const start = await progress();
  const { child, finished } = startCli(args);
  let done = false;
  void finished.then(() => {
    done = true;
  });
  let seen = start;
  while (!done) {
    seen = await progress();
    if (seen - start >= after) {
      child.kill('SIGKILL');
      return { killed: true, finished: await finished, progressAtKill: seen - start };
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { killed: false, finished: await finished, progressAtKill: seen - start };
}
