import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { unreviewed } from './cli-harness';

// The compiled package (built by the unit project's global setup), run with plain Node.

describe('the built package', () => {
  it('runs the retry-topology bin with plain Node', () => {
    const result = spawnSync(process.execPath, ['dist/cli/main.js', 'validate', 'policies'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('valid');
  });

  it('exits 1 without a stack trace on a bad file', () => {
    const result = spawnSync(process.execPath, ['dist/cli/main.js', 'plan', 'missing.yaml'], {
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('missing.yaml');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('resolves the package name and its subpath exports from CommonJS', () => {
    const script = `const core = require('retry-topology'); console.log(typeof core.derivePlan, typeof core.loadPolicyFiles)`;
    const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('function function');
  });
});

/** One file of `count` policies, each with its own names (and the unreviewed billing example's no-jitter warning). */
function manyPolicies(count: number): string {
  const billing = unreviewed(readFileSync('policies/billing.yaml', 'utf8'));
  const documents = Array.from({ length: count }, (_, index) =>
    billing
      .replaceAll('billing.order-placed', `team${index}.orders`)
      .replace('consumerGroup: billing', `consumerGroup: group${index}`)
      .replace('subscription: billing', `subscription: sub${index}`)
      .replace('declareTopic: true', 'declareTopic: false')
      .replace('declareExchange: true', 'declareExchange: false'),
  );
  const file = join(mkdtempSync(join(tmpdir(), 'rt-many-')), 'many.yaml');
  writeFileSync(file, documents.join('\n---\n'));
  return file;
}

/** Runs the bin with stdout read by a reader that closes it after the first chunk, like `| head -c 100`. */
function runIntoClosingReader(
  args: string[],
): Promise<{ status: number | null; stderr: string; read: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/cli/main.js', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let read = 0;
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.stdout.once('data', (chunk: Buffer) => {
      read = chunk.length;
      child.stdout.destroy();
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stderr, read }));
  });
}

describe('the built bin writing into a pipe its reader closes early', () => {
  // Far more than a pipe holds (64 KiB on Linux), so the bin is still writing when the reader goes.
  const forty = manyPolicies(40);

  it.each([
    [['plan', '--format', 'json', forty]],
    [['plan', forty]],
    [['plan', '--format', 'markdown', forty]],
  ])('%j stops quietly with its own exit status 0', async (args) => {
    const result = await runIntoClosingReader(args);
    expect(result.read).toBeGreaterThan(0);
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('keeps a failed check failed: validate --strict exits 1 though its reader stopped', async () => {
    const result = await runIntoClosingReader([
      'validate',
      '--strict',
      '--format',
      'json',
      manyPolicies(400),
    ]);
    expect(result.stderr).not.toContain('EPIPE');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.status).toBe(1);
  });
});
