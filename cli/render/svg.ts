import { printable } from '../../policy/printable';

/**
 * The few SVG building blocks the pictures share. GitHub shows an SVG inline only when it is
 * self-contained, so everything here is plain shapes and text: a generic font family (no web
 * font to fetch), no <script>, no external href. Numbers are rounded so output is stable.
 */

/** A generic family: every viewer has one, none has to be downloaded. */
export const FONT_FAMILY = 'sans-serif';
export const FONT_SIZE = 12;
/** A rough average glyph width of a sans-serif at FONT_SIZE, for sizing boxes around text. */
export const CHAR_WIDTH = 7;

export const COLORS = {
  text: '#1f2328',
  muted: '#59636e',
  grid: '#d1d9e0',
  axis: '#59636e',
  band: '#54aeff',
  bandFill: '#ddf4ff',
  point: '#0969da',
  danger: '#cf222e',
  dangerFill: '#ffebe9',
  box: '#f6f8fa',
  accent: '#8250df',
} as const;

export type Attrs = Record<string, string | number | undefined>;

/**
 * Text and attribute values as XML. Characters XML 1.0 forbids (most controls, lone surrogates,
 * U+FFFE/U+FFFF) are written as visible escapes first (printable), so the SVG always parses.
 */
export function escapeXml(text: string): string {
  return printable(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Two decimals at most: enough for pixels, and stable across platforms. */
export function num(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function attributes(attrs: Attrs): string {
  return Object.entries(attrs)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${typeof value === 'number' ? num(value) : escapeXml(value)}"`)
    .join('');
}

/** One element; children are already-serialised markup. */
export function el(name: string, attrs: Attrs, ...children: string[]): string {
  const open = `<${name}${attributes(attrs)}`;
  return children.length === 0 ? `${open}/>` : `${open}>${children.join('')}</${name}>`;
}

export function text(x: number, y: number, content: string, attrs: Attrs = {}): string {
  return el('text', { x, y, ...attrs }, escapeXml(content));
}

export function textWidth(content: string, size = FONT_SIZE): number {
  return [...content].length * CHAR_WIDTH * (size / FONT_SIZE);
}

/** An arrowhead for edges, referenced as url(#arrow) within the same document. */
export const ARROW_MARKER = el(
  'marker',
  { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
  el('path', { d: 'M0,0 L10,5 L0,10 z', fill: COLORS.axis }),
);

/** The whole document: a white background so it reads the same on a dark page. */
export function svgDocument(width: number, height: number, title: string, body: string[]): string {
  const root = el(
    'svg',
    {
      xmlns: 'http://www.w3.org/2000/svg',
      width,
      height,
      viewBox: `0 0 ${num(width)} ${num(height)}`,
      'font-family': FONT_FAMILY,
      'font-size': FONT_SIZE,
      role: 'img',
    },
    el('title', {}, escapeXml(title)),
    el('defs', {}, ARROW_MARKER),
    el('rect', { x: 0, y: 0, width, height, fill: '#ffffff' }),
    ...body.map((part) => `\n${part}`),
    '\n',
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n${root}\n`;
}

/** Round tick steps (1, 2 or 5 × 10^n) so an axis of `max` gets about `count` ticks. */
export function niceStep(max: number, count: number): number {
  if (max <= 0) return 1;
  const rough = max / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(rough));
  const steps = [1, 2, 5, 10].map((factor) => factor * power);
  return steps.find((step) => step >= rough) ?? 10 * power;
}

export function ticks(max: number, count: number): number[] {
  const step = niceStep(max, count);
  const out: number[] = [];
  for (let value = 0; value <= max + step / 1e6; value += step) out.push(Math.round(value * 1e6) / 1e6);
  return out;
}
