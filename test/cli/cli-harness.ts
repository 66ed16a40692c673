import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { run } from '../../cli/run';

/** Runs one command line in-process and captures what it writes. */
export async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, out: out.join(''), err: err.join('\n') };
}

export const BILLING = readFileSync('policies/billing.yaml', 'utf8');

/**
 * The billing example before review: without its acknowledgement, its fixed waits are a
 * no-jitter warning, so `validate --strict` fails on it.
 */
export const BILLING_UNREVIEWED = unreviewed(BILLING);

/** A policy text without its trailing `acknowledge:` list (the billing example's). */
export function unreviewed(text: string): string {
  const without = text.replace(/\n {2}# Reviewed warnings.*\n {2}acknowledge:\n(?: {4}.*\n)+$/, '\n');
  if (without === text) throw new Error('the policy text has no trailing acknowledge: list');
  return without;
}

/** Writes policy text to a fresh temp directory and returns the file's path. */
export function tempPolicy(text: string, name = 'policy.yaml'): string {
  const dir = mkdtempSync(join(tmpdir(), 'rt-cli-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** The billing example with full jitter, so waits are ranges on the targets that can apply it. */
export const BILLING_FULL_JITTER = BILLING.replace('  jitter: none', '  jitter: full');

/**
 * Compares output with test/golden/<name>; UPDATE_GOLDEN=1 writes it instead. A difference fails
 * with the diff, so a change to a picture or a comment is always a reviewed change.
 */
export function expectGolden(name: string, actual: string): void {
  const file = join('test', 'golden', name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
    return;
  }
  if (!existsSync(file))
    throw new Error(`${file} is missing: run UPDATE_GOLDEN=1 npx vitest run test/cli, then review it`);
  expect(actual, `${file} differs: if the change is intended, run UPDATE_GOLDEN=1 and review the diff`).toBe(
    readFileSync(file, 'utf8'),
  );
}
