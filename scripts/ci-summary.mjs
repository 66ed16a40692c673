// The last lines of a test run (scripts/test.sh): every step with its result and wall time, the
// test counts of each suite, the first failing test by file and name with its assertion message,
// and which step failed. Whoever reads only the end of a red CI log finds what broke here.
//
//   node scripts/ci-summary.mjs STEPS_FILE
//
// STEPS_FILE has one tab-separated line per step, in the order they ended:
//   name  result (ok | FAILED | running)  seconds  kind  vitest-json-reports (comma-separated)  log
import { existsSync, readFileSync } from 'node:fs';

const KINDS = {
  check: 'a check',
  build: 'a build',
  broker: 'a broker or cluster that did not start',
  suite: 'a test suite',
};

const stepsFile = process.argv[2];
const steps = (existsSync(stepsFile) ? readFileSync(stepsFile, 'utf8') : '')
  .split('\n')
  .filter(Boolean)
  .map((line) => {
    const [name, result, seconds, kind, reports, log] = line.split('\t');
    return { name, result, seconds: Number(seconds), kind, reports: reports ? reports.split(',') : [], log };
  });

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes are control characters
const plain = (text) => String(text ?? '').replace(/\u001b\[[0-9;]*m/g, '');

function readReport(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The first failed test of a vitest JSON report, or the first file that failed without one. */
function firstFailure(report) {
  for (const file of report.testResults ?? []) {
    const name = file.name.replace(`${process.cwd()}/`, '');
    const failed = (file.assertionResults ?? []).find((test) => test.status === 'failed');
    if (failed) {
      const title = [...(failed.ancestorTitles ?? []), failed.title].join(' > ');
      return { where: `${name} > ${title}`, message: plain(failed.failureMessages?.[0]) };
    }
    if (file.status === 'failed') return { where: name, message: plain(file.message) };
  }
  return undefined;
}

const lines = ['', '── test run summary ──'];
let first;
for (const step of steps) {
  const reports = step.reports.map(readReport).filter(Boolean);
  let counts = '';
  if (reports.length > 0) {
    const sum = (key) => reports.reduce((total, report) => total + (report[key] ?? 0), 0);
    const failed = sum('numFailedTests');
    counts = `${sum('numPassedTests')} passed${failed ? `, ${failed} failed` : ''}, ${sum('numPendingTests')} skipped`;
    if (!first) for (const report of reports) first ??= firstFailure(report);
  }
  const time = `${Math.round(step.seconds)} s`.padStart(6);
  lines.push(`  ${step.result.padEnd(7)} ${step.name.padEnd(34)} ${time}  ${counts}`.trimEnd());
}
const failedStep = steps.find((step) => step.result === 'FAILED');
if (first) {
  lines.push(`first failing test: ${first.where}`);
  const message = first.message
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line && !/^\s+at /.test(line))
    .slice(0, 6);
  for (const line of message) lines.push(`  ${line.slice(0, 200)}`);
}
if (failedStep) {
  lines.push(`FAILED at step "${failedStep.name}" (${KINDS[failedStep.kind] ?? failedStep.kind})`);
  if (!first && failedStep.log) lines.push(`  its output is above; the full log: ${failedStep.log}`);
} else if (steps.some((step) => step.result !== 'ok')) {
  lines.push('FAILED: a step did not finish (interrupted)');
} else {
  lines.push(`all ${steps.length} steps passed`);
}
process.stdout.write(`${lines.join('\n')}\n`);
