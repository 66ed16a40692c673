import { COLORS, el, num, svgDocument, text, textWidth } from './svg';
import type { Topology, TopologyEdge, TopologyNode } from './topology-model';

/**
 * The topology as an SVG: boxes in columns (source, main, wait levels stacked, dead letter),
 * straight arrows for the way forward and curved dashed ones for a message returning upstream.
 * Box widths follow their text, so long queue names stay inside their box.
 */

const LAYOUT = { top: 56, columnGap: 170, rowGap: 34, boxHeight: 54, padding: 12, margin: 24 } as const;

interface Box {
  node: TopologyNode;
  x: number;
  y: number;
  width: number;
}

const FILL: Record<TopologyNode['kind'], string> = {
  source: COLORS.box,
  main: COLORS.bandFill,
  wait: '#fff8c5',
  'dead-letter': COLORS.dangerFill,
};
const STROKE: Record<TopologyNode['kind'], string> = {
  source: COLORS.axis,
  main: COLORS.point,
  wait: '#9a6700',
  'dead-letter': COLORS.danger,
};

function layout(topology: Topology): { boxes: Map<string, Box>; width: number; height: number } {
  const columns = new Map<number, TopologyNode[]>();
  for (const node of topology.nodes) columns.set(node.column, [...(columns.get(node.column) ?? []), node]);
  const order = [...columns.keys()].sort((a, b) => a - b);
  const span = (count: number) => count * LAYOUT.boxHeight + (count - 1) * LAYOUT.rowGap;
  const rows = Math.max(1, ...topology.nodes.map((node) => node.row + 1));
  // Lone boxes (source, main) sit level with the middle of the wait levels, not of the dead letter.
  const levelRows = Math.max(
    1,
    ...topology.nodes.filter((node) => node.kind === 'wait').map((node) => node.row + 1),
  );
  const bodyHeight = span(rows);
  const boxes = new Map<string, Box>();
  let x = LAYOUT.margin;
  for (const column of order) {
    const nodes = columns.get(column) ?? [];
    const width = Math.max(
      ...nodes.map(
        (node) =>
          Math.max(textWidth(node.type), textWidth(node.name), textWidth(node.note)) + 2 * LAYOUT.padding,
      ),
    );
    for (const node of nodes) {
      // A column with one box centres it against the stacked levels.
      const y =
        nodes.length === 1 && node.row === 0
          ? LAYOUT.top + (span(levelRows) - LAYOUT.boxHeight) / 2
          : LAYOUT.top + node.row * (LAYOUT.boxHeight + LAYOUT.rowGap);
      boxes.set(node.id, { node, x, y, width });
    }
    x += width + LAYOUT.columnGap;
  }
  return {
    boxes,
    width: x - LAYOUT.columnGap + LAYOUT.margin,
    height: LAYOUT.top + bodyHeight + LAYOUT.margin,
  };
}

function centre(box: Box): { x: number; y: number } {
  return { x: box.x + box.width / 2, y: box.y + LAYOUT.boxHeight / 2 };
}

/** Where the line from the box's centre towards (dx, dy) leaves the box. */
function border(box: Box, dx: number, dy: number): { x: number; y: number } {
  const c = centre(box);
  const sx = dx === 0 ? Number.POSITIVE_INFINITY : box.width / 2 / Math.abs(dx);
  const sy = dy === 0 ? Number.POSITIVE_INFINITY : LAYOUT.boxHeight / 2 / Math.abs(dy);
  const scale = Math.min(sx, sy);
  return { x: c.x + dx * scale, y: c.y + dy * scale };
}

function drawEdge(edge: TopologyEdge, from: Box, to: Box): string[] {
  const a = centre(from);
  const b = centre(to);
  const start = border(from, b.x - a.x, b.y - a.y);
  const end = border(to, a.x - b.x, a.y - b.y);
  const stroke = edge.kind === 'dead-letter' ? COLORS.danger : COLORS.axis;
  if (edge.kind === 'back') {
    // Bend to one side so the return does not lie on top of the arrow going out.
    const mx = (start.x + end.x) / 2;
    const my = (start.y + end.y) / 2;
    const length = Math.hypot(end.x - start.x, end.y - start.y) || 1;
    const bend = 26;
    const cx = mx + ((end.y - start.y) / length) * bend;
    const cy = my - ((end.x - start.x) / length) * bend;
    const path = [
      el('path', {
        d: `M${num(start.x)},${num(start.y)} Q${num(cx)},${num(cy)} ${num(end.x)},${num(end.y)}`,
        fill: 'none',
        stroke,
        'stroke-dasharray': '5 4',
        'marker-end': 'url(#arrow)',
      }),
    ];
    if (edge.label)
      path.push(
        text((mx + cx) / 2, (my + cy) / 2 + 4, edge.label, {
          'text-anchor': 'middle',
          fill: COLORS.muted,
          'font-size': 11,
        }),
      );
    return path;
  }
  if (edge.kind === 'dead-letter' && from.x !== to.x) {
    // Down from the box, then across: a diagonal would cut through the wait levels between.
    const x = a.x;
    const y = b.y;
    const fromBottom = from.y + LAYOUT.boxHeight;
    return [
      el('path', {
        d: `M${num(x)},${num(fromBottom)} V${num(y)} H${num(to.x)}`,
        fill: 'none',
        stroke,
        'marker-end': 'url(#arrow)',
      }),
      text(x + 8, y - 6, edge.label, { fill: COLORS.danger, 'font-size': 11 }),
    ];
  }
  // A steep arrow gets its label beside it, a flat one above it.
  const steep = Math.abs(end.y - start.y) > Math.abs(end.x - start.x);
  return [
    el('line', { x1: start.x, y1: start.y, x2: end.x, y2: end.y, stroke, 'marker-end': 'url(#arrow)' }),
    text((start.x + end.x) / 2 + (steep ? 8 : 0), (start.y + end.y) / 2 + (steep ? 4 : -6), edge.label, {
      'text-anchor': steep ? 'start' : 'middle',
      fill: edge.kind === 'dead-letter' ? COLORS.danger : COLORS.muted,
      'font-size': 11,
    }),
  ];
}

export function svgTopology(title: string, subtitle: string, topology: Topology): string {
  const { boxes, width, height } = layout(topology);
  const body: string[] = [
    text(16, 22, title, { 'font-size': 15, 'font-weight': 'bold', fill: COLORS.text }),
    text(16, 38, subtitle, { fill: COLORS.muted }),
  ];
  for (const box of boxes.values()) {
    const { node } = box;
    body.push(
      el('rect', {
        x: box.x,
        y: box.y,
        width: box.width,
        height: LAYOUT.boxHeight,
        rx: node.kind === 'source' ? 27 : 6,
        fill: FILL[node.kind],
        stroke: STROKE[node.kind],
      }),
      text(box.x + LAYOUT.padding, box.y + 16, node.type, { fill: COLORS.muted, 'font-size': 11 }),
      text(box.x + LAYOUT.padding, box.y + 32, node.name, { fill: COLORS.text, 'font-weight': 'bold' }),
      text(box.x + LAYOUT.padding, box.y + 47, node.note, { fill: COLORS.muted, 'font-size': 11 }),
    );
  }
  for (const edge of topology.edges) {
    const from = boxes.get(edge.from);
    const to = boxes.get(edge.to);
    if (from && to) body.push(...drawEdge(edge, from, to));
  }
  return svgDocument(Math.max(width, textWidth(title, 15) + 32), height, title, body);
}
