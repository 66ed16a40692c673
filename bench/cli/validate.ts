/**
 * Wall time of `retry-topology validate` on many policies, the whole CLI process as CI runs it:
 * Node start, module loading, reading the files, YAML, the schema, the rules and the
 * cross-policy checks.
 *
 *   npm run build && npx tsx bench/cli/validate.ts [policies=1000] [rounds=7]
 *
 * The policies are the billing example with every target, one per file, each with names of its
 * own (so the cross-policy checks find nothing and every rule runs in full), spread over ten
 * team folders. Each round spawns `node dist/cli/main.js validate <dir>` once; the lines are the
 * median and the fastest of the rounds. One warm-up run first, so the file cache is warm as in
 * CI after checkout.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const POLICIES = Number(process.argv[2] ?? 1_000);
const ROUNDS = Number(process.argv[3] ?? 7);
const TEAMS = 10;

function writePolicies(root: string): void {
  const billing = readFileSync('policies/billing.yaml', 'utf8');
  for (let index = 0; index < POLICIES; index++) {
    const team = join(root, `team-${index % TEAMS}`);
    mkdirSync(team, { recursive: true });
    const name = `team${index % TEAMS}.consumer-${index}`;
    const text = billing
      .replaceAll('billing.order-placed', name)
      .replace('consumerGroup: billing', `consumerGroup: group-${index}`)
      .replace('subscription: billing', `subscription: sub-${index}`)
      .replace('declareTopic: true', 'declareTopic: false')
      .replace('declareExchange: true', 'declareExchange: false')
      // Clean under --strict: the acknowledged warning is a note.
      .replace(
        '  jitter: none',
        '  jitter: none\n  acknowledge:\n    - code: no-jitter\n      reason: bench',
      );
    writeFileSync(join(team, `${name}.yaml`), text);
  }
}

function once(dir: string): { ms: number; status: number | null; out: string } {
  const start = performance.now();
  const result = spawnSync(process.execPath, ['dist/cli/main.js', 'validate', '--strict', dir], {
    encoding: 'utf8',
  });
  return { ms: performance.now() - start, status: result.status, out: `${result.stdout}${result.stderr}` };
}

const root = mkdtempSync(join(tmpdir(), 'rt-bench-validate-'));
try {
  writePolicies(root);
  const warm = once(root);
  if (warm.status !== 0) throw new Error(`validate failed:\n${warm.out.slice(-2000)}`);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) times.push(once(root).ms);
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? 0;
  console.log(
    `${POLICIES} policies in ${POLICIES} files, ${ROUNDS} rounds (load ${loadavg()[0]?.toFixed(2)})`,
  );
  console.log(`  ${warm.out.trim().split('\n').pop()}`);
  console.log(
    `  median ${Math.round(median)} ms, fastest ${Math.round(times[0] ?? 0)} ms, slowest ${Math.round(times[times.length - 1] ?? 0)} ms`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
