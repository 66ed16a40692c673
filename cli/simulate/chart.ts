import { formatDuration } from '../../policy';
import { COLORS, el, niceStep, num, svgDocument, text } from '../render/svg';
import { durationTicks } from '../render/time-axis';
import type { SimulationReport } from './run';

/**
 * Retry arrivals per second after recovery, one step line per scenario, over a dashed line at
 * the normal arrival rate for scale. Self-contained like every SVG here (see render/svg.ts).
 */

const LAYOUT = { width: 760, height: 430, left: 70, right: 24, top: 72, bottom: 130 } as const;

function stepPath(
  rates: readonly number[],
  x: (ms: number) => number,
  y: (rate: number) => number,
  bucketMs: number,
) {
  if (rates.length === 0) return '';
  const parts = [`M${num(x(0))},${num(y(0))}`];
  rates.forEach((rate, index) => {
    parts.push(`V${num(y(rate))}`, `H${num(x((index + 1) * bucketMs))}`);
  });
  parts.push(`V${num(y(0))}`);
  return parts.join(' ');
}

export function simulationSvg(report: SimulationReport): string {
  const plotWidth = LAYOUT.width - LAYOUT.left - LAYOUT.right;
  const plotHeight = LAYOUT.height - LAYOUT.top - LAYOUT.bottom;
  const endMs = Math.max(
    report.bucketMs,
    ...report.scenarios.map((s) => s.ratesPerSecond.length * report.bucketMs),
  );
  const timeTicks = durationTicks(endMs, 8);
  const axisEnd = timeTicks.at(-1) ?? endMs;
  const top = Math.max(report.ratePerSecond, ...report.scenarios.map((s) => s.peakPerSecond)) * 1.1;
  const step = niceStep(top, 5);
  const rateEnd = Math.ceil(top / step) * step;
  const x = (ms: number) => LAYOUT.left + (ms / axisEnd) * plotWidth;
  const y = (rate: number) => LAYOUT.top + plotHeight - (rate / rateEnd) * plotHeight;
  const bottom = LAYOUT.top + plotHeight;

  const title = `${report.policy}: retries after a ${formatDuration(report.outageMs)} outage (${report.target})`;
  const body: string[] = [
    text(16, 22, title, { 'font-size': 15, 'font-weight': 'bold', fill: COLORS.text }),
    text(
      16,
      40,
      `${report.ratePerSecond}/s during the outage${report.backlog ? ` + a backlog of ${report.backlog}` : ''}, seed ${report.seed}, per ${formatDuration(report.bucketMs)}`,
      { fill: COLORS.muted },
    ),
  ];
  for (let rate = 0; rate <= rateEnd + step / 1e6; rate += step) {
    body.push(
      el('line', {
        x1: LAYOUT.left,
        y1: y(rate),
        x2: LAYOUT.left + plotWidth,
        y2: y(rate),
        stroke: COLORS.grid,
      }),
    );
    body.push(
      text(LAYOUT.left - 8, y(rate) + 4, `${Math.round(rate * 10) / 10}`, {
        'text-anchor': 'end',
        fill: COLORS.muted,
      }),
    );
  }
  for (const tick of timeTicks) {
    body.push(el('line', { x1: x(tick), y1: bottom, x2: x(tick), y2: bottom + 5, stroke: COLORS.axis }));
    body.push(
      text(x(tick), bottom + 18, `+${formatDuration(tick)}`, { 'text-anchor': 'middle', fill: COLORS.muted }),
    );
  }
  body.push(
    el('line', { x1: LAYOUT.left, y1: bottom, x2: LAYOUT.left + plotWidth, y2: bottom, stroke: COLORS.axis }),
  );
  body.push(
    text(LAYOUT.left + plotWidth / 2, bottom + 36, 'time since the dependency came back', {
      'text-anchor': 'middle',
      fill: COLORS.muted,
    }),
  );
  body.push(text(16, LAYOUT.top - 8, 'retries/s', { fill: COLORS.muted }));
  body.push(
    el('line', {
      x1: LAYOUT.left,
      y1: y(report.ratePerSecond),
      x2: LAYOUT.left + plotWidth,
      y2: y(report.ratePerSecond),
      stroke: COLORS.muted,
      'stroke-dasharray': '6 4',
    }),
    text(LAYOUT.left + plotWidth - 4, y(report.ratePerSecond) - 5, 'normal arrival rate', {
      'text-anchor': 'end',
      fill: COLORS.muted,
      'font-size': 11,
    }),
  );

  report.scenarios.forEach((scenario, index) => {
    // Red is the wave without jitter, blue the spread one, whichever column each is in.
    const color = scenario.jittered ? COLORS.point : COLORS.danger;
    body.push(
      el('path', {
        d: stepPath(scenario.ratesPerSecond, x, y, report.bucketMs),
        fill: 'none',
        stroke: color,
        'stroke-width': 2,
      }),
    );
    const legendY = bottom + 62 + index * 18;
    body.push(
      el('rect', { x: LAYOUT.left, y: legendY - 9, width: 14, height: 4, fill: color }),
      text(
        LAYOUT.left + 22,
        legendY - 4,
        `${scenario.label}: peak ${Math.round(scenario.peakPerSecond)}/s, peak/mean ${scenario.peakToMean.toFixed(2)}, ${scenario.deadLettered.toLocaleString('en-US')} dead-lettered`,
        { fill: COLORS.text },
      ),
    );
  });
  const noteY = bottom + 62 + report.scenarios.length * 18 + 4;
  body.push(
    text(
      LAYOUT.left,
      noteY,
      'Calls take no time and the consumer keeps up; dead-lettered messages are not replayed.',
      {
        fill: COLORS.muted,
        'font-size': 11,
      },
    ),
  );
  return svgDocument(LAYOUT.width, LAYOUT.height, title, body);
}
