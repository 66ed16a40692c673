import { printable } from '../../policy/printable';
import type { TimelineMark } from './timeline-model';
import type { Topology } from './topology-model';

/**
 * Mermaid text GitHub renders inside a ```mermaid block. The timeline is a gantt chart on a
 * millisecond axis (dateFormat x): a band per attempt from its earliest to its latest moment,
 * a milestone where the two meet. The topology is a left-to-right flowchart.
 */

/**
 * Gantt task names end at ":" and "#" starts an entity; quotes would break flowchart labels;
 * backticks start Markdown strings and "<" ">" "&" HTML, so they become Mermaid's own entity
 * codes (#lt; #gt; #amp;). Control characters are escapes and line breaks spaces, so a label
 * stays inside its line and cannot add a statement (click, style, %% directives).
 */
function label(text: string): string {
  return printable(text)
    .replace(/[:;#`]/g, ' ')
    .replace(/"/g, "'")
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/&/g, '#amp;')
    .replace(/</g, '#lt;')
    .replace(/>/g, '#gt;');
}

/**
 * d3 time formats that count from the epoch (%Q milliseconds, %s seconds): Mermaid formats the
 * axis in the viewer's time zone, and only these read the same everywhere (an hour or minute
 * field would shift by the zone's offset, even by 30 minutes in some zones).
 */
function axisFormat(endMs: number): string {
  return endMs < 10_000 ? '%Q ms' : '%s s';
}

export function mermaidTimeline(title: string, marks: readonly TimelineMark[], endMs: number): string {
  const lines = ['gantt', `  title ${label(title)}`, '  dateFormat x', `  axisFormat ${axisFormat(endMs)}`];
  lines.push('  section attempts');
  marks.forEach((mark, index) => {
    const key = `m${index}`;
    const name = label(`${mark.label}${mark.wait ? ` after ${mark.wait}` : ''} ← ${mark.via}`);
    const tags = mark.kind === 'dead-letter' ? 'crit, ' : '';
    lines.push(
      mark.fromMs === mark.toMs
        ? `  ${name} : ${tags}milestone, ${key}, ${mark.fromMs}, 0ms`
        : `  ${name} : ${tags}${key}, ${mark.fromMs}, ${mark.toMs}`,
    );
  });
  return `${lines.join('\n')}\n`;
}

const SHAPES: Record<string, [string, string]> = {
  source: ['([', '])'],
  main: ['[(', ')]'],
  wait: ['[', ']'],
  'dead-letter': ['[(', ')]'],
};

/** Node ids: letters, digits and underscores only ("wait-1" reads as an arrow to Mermaid). */
const id = (text: string) => text.replace(/[^A-Za-z0-9_]/g, '_');

const ARROWS: Record<string, string> = { flow: '-->', retry: '-->', back: '-.->', 'dead-letter': '==>' };

export function mermaidTopology(title: string, topology: Topology): string {
  const lines = ['---', `title: ${label(title)}`, '---', 'flowchart LR'];
  for (const node of topology.nodes) {
    const [open, close] = SHAPES[node.kind] ?? ['[', ']'];
    const text = [node.type, node.name, node.note].filter(Boolean).map(label).join('<br/>');
    lines.push(`  ${id(node.id)}${open}"${text}"${close}`);
  }
  for (const edge of topology.edges) {
    const arrow = ARROWS[edge.kind] ?? '-->';
    const text = edge.label ? `|"${label(edge.label)}"|` : '';
    lines.push(`  ${id(edge.from)} ${arrow}${text} ${id(edge.to)}`);
  }
  lines.push('  classDef deadLetter fill:#ffebe9,stroke:#cf222e');
  const deadLetters = topology.nodes.filter((node) => node.kind === 'dead-letter').map((node) => id(node.id));
  if (deadLetters.length) lines.push(`  class ${deadLetters.join(',')} deadLetter`);
  return `${lines.join('\n')}\n`;
}
