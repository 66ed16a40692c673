import { execFileSync } from 'node:child_process';

/**
 * Vitest global setup for `unit`: the tests of the built package need dist/ compiled once. The
 * scripts that have just built it (scripts/test.sh, scripts/check.sh) say so with
 * RETRY_TOPOLOGY_DIST_BUILT=1, and the second compile (half a minute here) is skipped.
 */
export default function setup(): void {
  if (process.env.RETRY_TOPOLOGY_DIST_BUILT === '1') return;
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
