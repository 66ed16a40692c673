import { execFileSync } from 'node:child_process';

/** Vitest global setup for `unit`: the tests of the built package need dist/ compiled once. */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
}
