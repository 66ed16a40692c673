import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The lock that keeps two test runs off the same brokers (machine-lock.ts). */
describe('the machine lock of the shared brokers', () => {
  const state = mkdtempSync(join(tmpdir(), 'rt-lock-'));
  let lock: typeof import('./machine-lock');
  beforeAll(async () => {
    process.env.RETRY_TOPOLOGY_STATE = state;
    lock = await import('./machine-lock');
  });
  afterAll(() => {
    delete process.env.RETRY_TOPOLOGY_STATE;
    rmSync(state, { recursive: true, force: true });
  });

  /** A lock held by another live process, for as long as that process runs. */
  function heldByAnother(name: string, seconds: number) {
    const child = spawn('sleep', [String(seconds)]);
    mkdirSync(join(state, `${name}.lock`));
    writeFileSync(join(state, `${name}.lock`, 'pid'), String(child.pid));
    const ended = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    return { ended, end: () => child.kill() };
  }

  it('is shared by the projects of one process, and released', async () => {
    expect(await lock.takeLock('a', 'a', 1_000)).toBe(false);
    expect(await lock.takeLock('a', 'a', 1_000)).toBe(true);
    lock.releaseLock('a');
    expect(await lock.takeLock('a', 'a', 1_000)).toBe(false);
    lock.releaseLock('a');
  });

  it('is taken over from a run that died without releasing it', async () => {
    await heldByAnother('b', 0).ended;
    expect(await lock.takeLock('b', 'b', 1_000)).toBe(false);
    lock.releaseLock('b');
  });

  it('waits while another run holds it, and gives up after the wait', async () => {
    // The other run ends when the test says so, not after a time the lock's polls must fit in.
    const other = heldByAnother('c', 600);
    await expect(lock.takeLock('c', 'c', 500)).rejects.toThrow(/stayed locked by pid/);
    const taken = lock.takeLock('c', 'c', 60_000);
    other.end();
    await other.ended;
    expect(await taken).toBe(false);
    lock.releaseLock('c');
  });
});
