import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writePolicies } from '../../bench/cli/policies';
import { cli } from './cli-harness';

/**
 * The built CLI reads 200 files or more on two threads (cli/load-parallel.ts); run from the
 * TypeScript sources, as cli() runs it, everything stays on one thread. The two must print the
 * same, byte for byte, including findings that need a file the worker read: a policy name used
 * twice and a broker entity two policies own, whose second file is in the worker's part.
 */

const root = mkdtempSync(join(tmpdir(), 'rt-validate-parallel-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const built = (...args: string[]) => {
  const result = spawnSync(process.execPath, ['dist/cli/main.js', ...args], { encoding: 'utf8' });
  return { code: result.status, out: result.stdout.trimEnd(), err: result.stderr.trimEnd() };
};

describe('validate on two threads', () => {
  writePolicies(root, 320);
  const first = readdirSync(join(root, 'team-0')).find((name) => name.endsWith('.yaml')) ?? '';
  // Sorted last, so in the worker's part: a copy of a policy the main thread reads, and a broken file.
  mkdirSync(join(root, 'zz'));
  copyFileSync(join(root, 'team-0', first), join(root, 'zz', 'copy.yaml'));
  writeFileSync(
    join(root, 'zz', 'broken.yaml'),
    'apiVersion: retry-topology/v1\nkind: RetryPolicy\nspec: [\n',
  );

  it('finds the same, in the same order, at the same lines as on one thread', async () => {
    for (const format of ['text', 'json', 'github']) {
      const inProcess = await cli('validate', root, '--format', format);
      const one = { ...inProcess, out: inProcess.out.trimEnd() };
      const two = built('validate', root, '--format', format);
      expect(two, format).toEqual(one);
    }
    const json = JSON.parse(built('validate', root, '--format', 'json').out) as {
      findings: Array<{ code: string; file: string; line: number }>;
    };
    const codes = json.findings
      .filter((each) => each.file.endsWith(join('zz', 'copy.yaml')))
      .map((each) => each.code);
    expect(codes).toContain('duplicate-policy-name');
    expect(
      json.findings.some((each) => each.file.endsWith('broken.yaml') && each.code === 'yaml-syntax'),
    ).toBe(true);
  });
});
