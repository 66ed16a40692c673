/**
 * What the components cost over the Pulumi SDK's own floor, at the scale of a platform: N
 * policies built as `RetryTopology` components against the same custom resources registered
 * bare, under the same SDK and mocks, in one run. The ratio is what to read, not the seconds.
 *
 *   npx tsx bench/components/scale.ts [sizes=100,1000] [rounds=3] [dist=dist]
 *
 * Each build runs in a fresh Node process on the compiled package (bench/components/build.cjs);
 * per round and size the two modes run back to back, in alternating order, so outside load hits
 * both. Reported per size: the median CPU time (and wall time) of each mode, their ratio, time
 * per registration, and peak RSS; then how each mode grows from the smallest to the largest size
 * (linear growth: the time per registration stays the same).
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';

interface Build {
  mode: 'components' | 'bare';
  policies: number;
  ms: number;
  cpuMs: number;
  registrations: number;
  peakRssMb: number;
}

const ROOT = resolve(__dirname, '..', '..');
const SIZES = (process.argv[2] ?? '100,1000').split(',').map(Number);
const ROUNDS = Number(process.argv[3] ?? 3);
const DIST = resolve(process.argv[4] ?? join(ROOT, 'dist'));

function build(mode: Build['mode'], policies: number): Build {
  const out = execFileSync(
    process.execPath,
    ['--max-old-space-size=8192', join(__dirname, 'build.cjs'), mode, String(policies), DIST],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
  );
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Build;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

function main(): void {
  if (DIST === join(ROOT, 'dist'))
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  const runs: Build[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SIZES) {
      const order: Array<Build['mode']> = round % 2 === 0 ? ['bare', 'components'] : ['components', 'bare'];
      for (const mode of order) {
        const run = build(mode, size);
        runs.push(run);
        console.error(`round ${round + 1}: ${JSON.stringify(run)}`);
      }
    }
  }
  const of = (mode: Build['mode'], size: number) =>
    runs.filter((run) => run.mode === mode && run.policies === size);
  const rows = SIZES.map((size) => {
    const [bare, components] = [of('bare', size), of('components', size)];
    const cpu = {
      bare: median(bare.map((run) => run.cpuMs)),
      components: median(components.map((run) => run.cpuMs)),
    };
    const wall = {
      bare: median(bare.map((run) => run.ms)),
      components: median(components.map((run) => run.ms)),
    };
    const registrations = {
      bare: bare[0]?.registrations ?? 0,
      components: components[0]?.registrations ?? 0,
    };
    return {
      size,
      cpu,
      wall,
      registrations,
      rss: {
        bare: median(bare.map((run) => run.peakRssMb)),
        components: median(components.map((run) => run.peakRssMb)),
      },
    };
  });
  console.log(
    '| policies | registrations (bare / components) | CPU s bare | CPU s components | **ratio (CPU)** | wall s bare / components (ratio) | CPU ms per bare resource | peak RSS MB bare / components |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) {
    console.log(
      `| ${row.size} | ${row.registrations.bare} / ${row.registrations.components} | ${(row.cpu.bare / 1000).toFixed(1)} | ${(row.cpu.components / 1000).toFixed(1)} | **${(row.cpu.components / row.cpu.bare).toFixed(2)}** | ${(row.wall.bare / 1000).toFixed(1)} / ${(row.wall.components / 1000).toFixed(1)} (${(row.wall.components / row.wall.bare).toFixed(2)}) | ${(row.cpu.bare / row.registrations.bare).toFixed(2)} | ${row.rss.bare} / ${row.rss.components} |`,
    );
  }
  const [first, last] = [rows[0], rows[rows.length - 1]];
  if (first && last && first !== last) {
    const growth = (mode: 'bare' | 'components') =>
      last.cpu[mode] / first.cpu[mode] / (last.size / first.size);
    console.log(
      `\nGrowth ${first.size} → ${last.size} policies, CPU time over the size factor (1.00 = linear): bare ${growth('bare').toFixed(2)}, components ${growth('components').toFixed(2)}`,
    );
  }
}

main();
