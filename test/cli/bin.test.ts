import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

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
