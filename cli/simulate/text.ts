import { formatDuration } from '../../policy';
import { range } from '../format/describe-plan';
import { textTable } from '../format/table';
import type { SimulationReport } from './run';

/** The simulation as numbers a reviewer can paste: one column per scenario. */

const count = (value: number) => value.toLocaleString('en-US');
/** 100/s, 2.5/s, 0.002/s, 1e-7/s: a small rate keeps its significant digits instead of reading 0/s. */
export const rate = (value: number) =>
  `${value >= 10 ? count(Math.round(value * 10) / 10) : String(Number(value.toPrecision(3)))}/s`;
const seconds = (ms: number) => formatDuration(Math.round(ms / 100) * 100);

export function simulationText(report: SimulationReport): string {
  const { scenarios } = report;
  const rows = [
    ['', ...scenarios.map((scenario) => scenario.label)],
    ['messages in the outage', ...scenarios.map((s) => count(s.messages))],
    ['dead-lettered in the outage', ...scenarios.map((s) => count(s.deadLettered))],
    ['retried after recovery', ...scenarios.map((s) => count(s.retries))],
    ['peak retry rate', ...scenarios.map((s) => `${rate(s.peakPerSecond)} at +${seconds(s.peakAtMs)}`)],
    ['mean until clear', ...scenarios.map((s) => rate(s.meanPerSecond))],
    ['peak / mean', ...scenarios.map((s) => s.peakToMean.toFixed(2))],
    ['backlog clears after', ...scenarios.map((s) => seconds(s.clearMs))],
  ];
  const lines = [
    `${report.policy} on ${report.target}: outage ${formatDuration(report.outageMs)}, ${rate(report.ratePerSecond)}${report.backlog ? ` + a backlog of ${count(report.backlog)}` : ''}, seed ${report.seed}`,
    `  retry window ${range(report.retryWindowMs)}; rates per ${formatDuration(report.bucketMs)} bucket after the dependency comes back`,
    '',
    ...textTable(rows),
    '',
    ...notes(report).map((note) => `  ${note}`),
  ];
  return `${lines.join('\n')}\n`;
}

export function notes(report: SimulationReport): string[] {
  const out = [
    'Assumes calls take no time and the consumer keeps up; waiting messages keep their own schedule,',
    'dead-lettered ones stay dead-lettered (replaying them is a separate wave).',
  ];
  const deadLettered = report.scenarios.some((scenario) => scenario.deadLettered > 0);
  if (report.outageMs > report.retryWindowMs.max && deadLettered)
    out.push(
      `The outage outlasts the retry window (${formatDuration(report.retryWindowMs.max)}): messages that failed early were dead-lettered before it ended.`,
    );
  if (report.backlog === 0)
    out.push(
      'Failures arrived as a steady stream, so they return as one: jitter changes how many are still',
      'waiting, not the shape. Jitter spreads messages that failed together: --backlog N adds such a burst.',
    );
  const [first, second] = report.scenarios;
  if (first && second && first.deadLettered !== second.deadLettered) {
    const [more, fewer] = first.deadLettered > second.deadLettered ? [first, second] : [second, first];
    out.push(
      `"${more.label}" dead-letters ${count(more.deadLettered - fewer.deadLettered)} more: jittered waits are shorter on average (full jitter: half the delay).`,
    );
  }
  return out;
}
