import { formatDuration } from '../../policy';
import { COLORS, el, svgDocument, text, textWidth } from './svg';
import { durationTicks } from './time-axis';
import type { TimelineMark } from './timeline-model';

/**
 * The attempt timeline as an SVG: one row per attempt and one for the dead letter, on a shared
 * time axis from the first delivery. A band is the range an attempt can fall in (jitter and
 * in-memory retries); a dot is a fixed moment. Labels left of the axis name the row, labels
 * right of each mark give its window, so the picture reads without a legend.
 */

const LAYOUT = {
  width: 760,
  top: 48,
  rowHeight: 30,
  bandHeight: 14,
  right: 110,
  axisGap: 12,
  bottom: 56,
} as const;

export function svgTimeline(
  title: string,
  subtitle: string,
  marks: readonly TimelineMark[],
  endMs: number,
): string {
  const labels = marks.map((mark) => (mark.wait ? `${mark.label}  (wait ${mark.wait})` : mark.label));
  const left = Math.max(140, ...labels.map((label) => textWidth(label) + 24));
  const plotWidth = LAYOUT.width - left - LAYOUT.right;
  const axisTicks = durationTicks(endMs, 6);
  const axisEnd = Math.max(endMs, axisTicks.at(-1) ?? endMs);
  const x = (ms: number) => left + (ms / axisEnd) * plotWidth;
  const rowY = (index: number) => LAYOUT.top + index * LAYOUT.rowHeight + LAYOUT.rowHeight / 2;
  const axisY = LAYOUT.top + marks.length * LAYOUT.rowHeight + LAYOUT.axisGap;
  const height = axisY + LAYOUT.bottom;

  const body: string[] = [
    text(16, 22, title, { 'font-size': 15, 'font-weight': 'bold', fill: COLORS.text }),
    text(16, 38, subtitle, { fill: COLORS.muted }),
  ];
  for (const tick of axisTicks) {
    body.push(el('line', { x1: x(tick), y1: LAYOUT.top, x2: x(tick), y2: axisY, stroke: COLORS.grid }));
    body.push(
      text(x(tick), axisY + 16, formatDuration(tick), { 'text-anchor': 'middle', fill: COLORS.muted }),
    );
  }
  body.push(el('line', { x1: left, y1: axisY, x2: left + plotWidth, y2: axisY, stroke: COLORS.axis }));
  body.push(
    text(left + plotWidth / 2, axisY + 36, 'time since the first delivery', {
      'text-anchor': 'middle',
      fill: COLORS.muted,
    }),
  );

  marks.forEach((mark, index) => {
    const y = rowY(index);
    const deadLetter = mark.kind === 'dead-letter';
    const stroke = deadLetter ? COLORS.danger : COLORS.point;
    body.push(
      text(16, y + 4, labels[index] ?? mark.label, { fill: deadLetter ? COLORS.danger : COLORS.text }),
    );
    const from = x(mark.fromMs);
    const to = x(mark.toMs);
    if (mark.toMs > mark.fromMs) {
      body.push(
        el('rect', {
          x: from,
          y: y - LAYOUT.bandHeight / 2,
          width: Math.max(2, to - from),
          height: LAYOUT.bandHeight,
          rx: 3,
          fill: deadLetter ? COLORS.dangerFill : COLORS.bandFill,
          stroke: deadLetter ? COLORS.danger : COLORS.band,
        }),
      );
    } else {
      body.push(el('circle', { cx: from, cy: y, r: 5, fill: stroke }));
    }
    const window =
      mark.toMs > mark.fromMs
        ? `${formatDuration(mark.fromMs)}–${formatDuration(mark.toMs)}`
        : formatDuration(mark.fromMs);
    body.push(text(Math.max(from, to) + 9, y + 4, window, { fill: COLORS.muted }));
  });
  return svgDocument(LAYOUT.width, height, title, body);
}
