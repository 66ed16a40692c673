import { formatIssue } from '../../policy';
import { code, markdownTable } from '../format/markdown';
import type { Comparison, FindingChange, PolicyPair } from './compare';
import { policySection } from './policy-section';
import { type ResourceChange, RISK_ORDER } from './risk';
import type { Side } from './sources';

/**
 * The diff as Markdown, ready to post as a pull-request comment. The first line is a marker a
 * CI job can find to update its earlier comment instead of adding another.
 *
 * A comment has a size limit (GitHub refuses one over 65,536 characters), so the comment is
 * bounded: the summary and a table of every changed policy come first; each policy's details
 * follow, folded (open when it would lose messages), then the findings, as many as fit. What
 * does not fit is counted in one line that points at the full report (`--full-report FILE`).
 */

export const COMMENT_MARKER = '<!-- retry-topology diff -->';
/** GitHub's limit is 65,536; the rest is room for what a CI step adds around the comment. */
export const DEFAULT_MAX_CHARS = 60_000;
/** Room kept for the closing "N more" line. */
const FOOTER_ROOM = 800;
/** One finding's text at most; a finding quoting a huge value says enough in this many. */
const FINDING_CHARS = 500;

const MARK = { error: '✖', warning: '⚠', note: 'ℹ' } as const;

const plural = (count: number, word: string, words = `${word}s`) => `${count} ${count === 1 ? word : words}`;

/** In HTML (a <summary>), where Markdown is not read: escaped, and in <code> so nothing pings. */
function htmlCode(text: string): string {
  const escaped = [...text]
    .slice(0, 120)
    .join('')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/@/g, '&#64;');
  return `<code>${escaped}</code>`;
}

function findingLine(change: FindingChange): string {
  const found = change.found;
  return `- ${MARK[found.severity]} ${code(change.owner)}: ${code(formatIssue(found), FINDING_CHARS)}`;
}

function noteLine(side: Side): string | undefined {
  const note = side.note;
  if (!note) return undefined;
  return note.kind === 'missing'
    ? `> ${code(note.path)} does not exist at ${code(note.rev)}: every policy is new`
    : `> no policy files in ${code(note.path)} at ${code(note.rev)}`;
}

interface Section {
  pair: PolicyPair;
  lines: string[];
  changes: ResourceChange[];
  newErrors: number;
}

function riskCounts(changes: readonly ResourceChange[]): string {
  const count = (risk: ResourceChange['risk']) => changes.filter((change) => change.risk === risk).length;
  const parts = [
    count('data-loss') ? `🔴 ${count('data-loss')}` : '',
    count('caution') ? `🟡 ${count('caution')}` : '',
    count('safe') ? `🟢 ${count('safe')}` : '',
  ].filter(Boolean);
  return parts.join(' ') || '—';
}

const worst = (section: Section) =>
  Math.min(RISK_ORDER.safe + 1, ...section.changes.map((change) => RISK_ORDER[change.risk]));

function sectionBlock(section: Section): string[] {
  const open = section.changes.some((change) => change.risk === 'data-loss') ? ' open' : '';
  const errors = section.newErrors ? `, ${plural(section.newErrors, 'new error')}` : '';
  const summary = `${htmlCode(section.pair.name)} ${section.pair.status}: ${riskCounts(section.changes)}${errors}`;
  return [`<details${open}><summary>${summary}</summary>`, '', ...section.lines, '</details>', ''];
}

export interface DiffMarkdownOptions {
  /** The comment's size limit in characters (UTF-16 code units, which never undercount). */
  maxChars?: number;
  /** Where the full report is written, to name it in the "N more" line. */
  fullReport?: string;
}

export function diffMarkdown(
  old: Side,
  next: Side,
  comparison: Comparison,
  options: DiffMarkdownOptions = {},
): string {
  const maxChars = options.maxChars ?? Number.POSITIVE_INFINITY;
  const count = (status: string) => comparison.pairs.filter((pair) => pair.status === status).length;
  const head = [COMMENT_MARKER, '### Retry policy diff', '', `${code(old.spec)} → ${code(next.spec)}`, ''];
  for (const side of [old, next]) {
    const line = noteLine(side);
    if (line) head.push(line, '');
  }

  const newErrorsOf = (name: string) =>
    comparison.findings.filter(
      (change) => change.kind === 'new' && change.found.severity === 'error' && change.owner === name,
    ).length;
  const sections: Section[] = comparison.pairs
    .filter((pair) => pair.status !== 'unchanged')
    .map((pair) => ({ pair, ...policySection(pair), newErrors: newErrorsOf(pair.name) }))
    // Riskiest first, so a cut never hides a data loss behind safe changes.
    .sort((a, b) => worst(a) - worst(b) || b.newErrors - a.newErrors);
  const changes = sections.flatMap((section) => section.changes);
  const losses = changes.filter((change) => change.risk === 'data-loss').length;
  const cautions = changes.filter((change) => change.risk === 'caution').length;

  if (sections.length === 0 && comparison.findings.length === 0) {
    head.push(
      `**No changes**: ${plural(comparison.pairs.length, 'policy', 'policies')} compared, every plan and finding is the same.`,
    );
    return `${head.join('\n')}\n`;
  }
  const summary = [
    `${count('changed')} changed, ${count('added')} added, ${count('removed')} removed, ${count('unchanged')} unchanged`,
    losses ? `🔴 ${plural(losses, 'change')} would lose messages` : '',
    cautions ? `🟡 ${plural(cautions, 'change')} to check` : '',
    comparison.newErrors ? `✖ ${plural(comparison.newErrors, 'new error')}` : '',
  ].filter(Boolean);
  head.push(`**${summary.join(' · ')}**`, '');

  const out: string[] = [...head];
  let size = out.join('\n').length;
  const budget = maxChars - FOOTER_ROOM;
  const fits = (lines: readonly string[]) => size + lines.join('\n').length + 1 <= budget;
  const add = (lines: readonly string[]) => {
    out.push(...lines);
    size += lines.join('\n').length + 1;
  };

  // The table of every changed policy: the whole change at a glance, kept even when details are cut.
  let tableRows = 0;
  if (sections.length > 0) {
    const rows = sections.map((section) => [
      code(section.pair.name),
      section.pair.status,
      riskCounts(section.changes),
      section.newErrors ? `✖ ${section.newErrors}` : '—',
    ]);
    const table = markdownTable(['policy', 'status', 'resource changes', 'new errors'], rows);
    // Header and separator always; rows while they fit in half the room.
    const kept = [table[0] ?? '', table[1] ?? ''];
    for (const row of table.slice(2)) {
      if (size + [...kept, row].join('\n').length > budget / 2) break;
      kept.push(row);
      tableRows++;
    }
    add([...kept, '']);
  }

  let shownSections = 0;
  for (const section of sections) {
    const block = sectionBlock(section);
    if (!fits(block)) break;
    add(block);
    shownSections++;
  }

  const added = comparison.findings.filter((change) => change.kind === 'new');
  const resolved = comparison.findings.filter((change) => change.kind === 'resolved');
  let shownFindings = 0;
  if (added.length || resolved.length) {
    add(['#### Findings', '']);
    for (const [title, list] of [
      ['New:', added],
      ['Resolved:', resolved],
    ] as const) {
      if (list.length === 0 || !fits([title, ''])) continue;
      add([title, '']);
      for (const change of list) {
        const line = findingLine(change);
        if (!fits([line])) break;
        add([line]);
        shownFindings++;
      }
      add(['']);
    }
  } else if (comparison.unchangedFindings) {
    add([`_No new or resolved findings (${plural(comparison.unchangedFindings, 'finding')} unchanged)._`]);
  }
  if (comparison.unchangedFindings && (added.length || resolved.length))
    add([`_${plural(comparison.unchangedFindings, 'finding')} unchanged._`, '']);
  if (comparison.uncheckedFindings)
    add([
      `_${plural(comparison.uncheckedFindings, 'finding')} of the old side not checked again: the new side has errors there._`,
      '',
    ]);

  const missing = [
    sections.length - tableRows ? plural(sections.length - tableRows, 'policy row', 'policy rows') : '',
    sections.length - shownSections
      ? plural(sections.length - shownSections, 'policy detail', 'policy details')
      : '',
    added.length + resolved.length - shownFindings
      ? plural(added.length + resolved.length - shownFindings, 'finding')
      : '',
  ].filter(Boolean);
  if (missing.length > 0) {
    const where = options.fullReport
      ? `the full report, ${code(options.fullReport)} (the job's artifact), and the job log`
      : 'the job log, or run `retry-topology diff --full-report FILE`';
    out.push(
      `**${missing.join(', ')} more not shown here** (a comment holds at most 65,536 characters): see ${where}.`,
    );
  }
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}
