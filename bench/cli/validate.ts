/**
 * Wall and CPU time of `retry-topology validate` on many policies, the whole CLI process as CI
 * runs it: Node start, module loading, finding and reading the files, YAML, the schema, the
 * rules, the cross-policy checks and printing the findings.
 *
 *   npm run build && npx tsx bench/cli/validate.ts [--policies 1000,100] [--rounds 9] [--cli dist/cli/main.js]...
 *
 * The policies are varied (bench/cli/policies.ts) and written once to a temporary directory.
 * Each round runs `node <cli> validate <dir>` once per CLI and size, interleaved, so outside load
 * falls on every build alike; `--cli` more than once compares builds (say the one before a change,
 * built into another directory). One warm-up run of each first, so the file cache is warm as in CI
 * after a checkout. Times come from bash's `time` (wall, and user + system CPU of the process and
 * its threads); the load average is read before each round, because other work on the machine
 * shows in the wall time (see BENCHMARKS.md).
 *
 * Each round also runs the floor (parse-floor.cjs): the same files read and parsed with the `yaml`
 * library alone, in one process, as a user would by hand. Every CLI's time is reported as a ratio
 * to the floor's in the same round: the median and range of those ratios are the result, because
 * outside load moves both numbers of a round together.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writePolicies } from './policies';

const { values } = parseArgs({
  options: {
    policies: { type: 'string', default: '1000,100' },
    rounds: { type: 'string', default: '9' },
    cli: { type: 'string', multiple: true, default: ['dist/cli/main.js'] },
  },
});
const SIZES = (values.policies ?? '').split(',').map(Number);
const ROUNDS = Number(values.rounds);
const CLIS = values.cli ?? [];
const FLOOR = join(__dirname, 'parse-floor.cjs');

interface Run {
  wallMs: number;
  cpuMs: number;
  status: number;
  out: string;
}

/** One process under bash's `time`: its output apart from the timing line. */
function once(args: string[]): Run {
  const script = 'TIMEFORMAT="%R %U %S"; { time "$@" >"$OUT" 2>&1 ; } 2>&1; echo "status $?" ';
  const dir = mkdtempSync(join(tmpdir(), 'rt-bench-out-'));
  const out = join(dir, 'out');
  try {
    const result = spawnSync('bash', ['-c', script, 'bash', ...args], {
      encoding: 'utf8',
      env: { ...process.env, OUT: out },
    });
    const [timing = '', statusLine = ''] = result.stdout.trim().split('\n').slice(-2);
    const [real = 'NaN', user = 'NaN', system = 'NaN'] = timing.split(' ');
    return {
      wallMs: Number(real) * 1000,
      cpuMs: (Number(user) + Number(system)) * 1000,
      status: Number(statusLine.replace('status ', '')),
      out: readFileSync(out, 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.round((sorted.length - 1) * q)] ?? Number.NaN;
const ms = (value: number) => `${Math.round(value)}`;

function report(label: string, runs: Run[], loads: number[]): void {
  const wall = runs.map((run) => run.wallMs).sort((a, b) => a - b);
  const cpu = runs.map((run) => run.cpuMs).sort((a, b) => a - b);
  const load = [...loads].sort((a, b) => a - b);
  console.log(
    `${label}: wall median ${ms(quantile(wall, 0.5))} ms (min ${ms(wall[0] ?? 0)}, max ${ms(wall[wall.length - 1] ?? 0)}); ` +
      `CPU median ${ms(quantile(cpu, 0.5))} ms (min ${ms(cpu[0] ?? 0)}, max ${ms(cpu[cpu.length - 1] ?? 0)}); ` +
      `load ${load[0]?.toFixed(2)}–${load[load.length - 1]?.toFixed(2)}`,
  );
}

/** Each round's time over the floor's in the same round: median and range, wall and CPU. */
function ratios(label: string, runs: Run[], floor: Run[]): void {
  const of = (pick: (run: Run) => number) =>
    runs.map((run, round) => pick(run) / pick(floor[round] as Run)).sort((a, b) => a - b);
  const show = (sorted: number[]) =>
    `${quantile(sorted, 0.5).toFixed(2)} (${sorted[0]?.toFixed(2)}–${sorted[sorted.length - 1]?.toFixed(2)})`;
  console.log(`${label}: wall ${show(of((run) => run.wallMs))}, CPU ${show(of((run) => run.cpuMs))}`);
}

const root = mkdtempSync(join(tmpdir(), 'rt-bench-validate-'));
try {
  const cases = SIZES.map((size) => {
    const dir = join(root, `p${size}`);
    const files = writePolicies(dir, size);
    return { size, files, dir };
  });
  console.log(`${cpus().length} CPUs, Node ${process.version}, ${ROUNDS} rounds`);
  const node = once([process.execPath, '-e', '0']);
  console.log(
    `node -e 0 (the floor of any Node process): wall ${ms(node.wallMs)} ms, CPU ${ms(node.cpuMs)} ms`,
  );
  const results = new Map<string, { runs: Run[]; loads: number[] }>();
  for (const { size, files, dir } of cases) {
    const warm = once([process.execPath, FLOOR, dir]);
    if (warm.status !== 0 || !warm.out.startsWith(`${size} documents in ${files} files read`))
      throw new Error(`the floor failed (${warm.status}):\n${warm.out.slice(-2000)}`);
    results.set(`${FLOOR} ${size}`, { runs: [], loads: [] });
    for (const cli of CLIS) {
      const warm = once([process.execPath, cli, 'validate', dir]);
      const last = warm.out.trim().split('\n').pop() ?? '';
      if (
        warm.status !== 0 ||
        !last.includes(`${size.toLocaleString('en-US')} policies in ${files} files valid`)
      )
        throw new Error(`${cli} validate failed (${warm.status}):\n${warm.out.slice(-2000)}`);
      console.log(`${cli}, ${size} policies: ${last}`);
      results.set(`${cli} ${size}`, { runs: [], loads: [] });
    }
  }
  for (let round = 0; round < ROUNDS; round++)
    for (const { size, dir } of cases)
      for (const cli of [FLOOR, ...CLIS]) {
        const entry = results.get(`${cli} ${size}`);
        entry?.loads.push(loadavg()[0] ?? Number.NaN);
        entry?.runs.push(once([process.execPath, ...(cli === FLOOR ? [cli] : [cli, 'validate']), dir]));
      }
  for (const { size, files } of cases) {
    const floor = results.get(`${FLOOR} ${size}`);
    if (floor) report(`floor (yaml alone), ${size} policies in ${files} files`, floor.runs, floor.loads);
    for (const cli of CLIS) {
      const entry = results.get(`${cli} ${size}`);
      if (!entry || !floor) continue;
      report(`${cli}, ${size} policies in ${files} files`, entry.runs, entry.loads);
      ratios(`  ÷ floor, round by round`, entry.runs, floor.runs);
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
