import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A lock per shared thing on this machine (the local brokers, each cluster): they listen on fixed
 * ports, and a second test run restarting or killing them would break the first. A lock is a
 * directory holding the owner's pid; one whose owner is gone (a run killed with SIGKILL) is taken
 * over. The projects of one vitest process share their locks.
 */

const STATE = process.env.RETRY_TOPOLOGY_STATE ?? '/tmp/retry-topology';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const lockDir = (name: string) => join(STATE, `${name}.lock`);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function owner(name: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(lockDir(name), 'pid'), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock, waiting for another run to end; true if this process holds it already (another
 * project of the run).
 */
export async function takeLock(name: string, what: string, waitMs: number): Promise<boolean> {
  const dir = lockDir(name);
  const deadline = Date.now() + waitMs;
  let told = false;
  mkdirSync(STATE, { recursive: true });
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, 'pid'), String(process.pid));
      return false;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = owner(name);
    if (pid === process.pid) return true;
    if (pid !== undefined && !alive(pid)) {
      rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (pid === undefined) {
      // Just made by another run that has not written its pid yet, or left empty by a crash.
      await sleep(2_000);
      if (owner(name) === undefined) rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (!told) {
      console.log(`${what}: in use by another test run (pid ${pid}); waiting`);
      told = true;
    }
    if (Date.now() > deadline) throw new Error(`${what} stayed locked by pid ${pid} (${dir})`);
    await sleep(2_000);
  }
}

/** Gives the lock back if this process holds it. */
export function releaseLock(name: string): void {
  if (owner(name) === process.pid) rmSync(lockDir(name), { recursive: true, force: true });
}
