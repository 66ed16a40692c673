import { formatIssue, type Issue } from '../../policy';
import type { Comparison, FindingChange } from './compare';
import { policySection } from './policy-section';
import type { Side } from './sources';

/**
 * The diff as Markdown, ready to post as a pull-request comment. The first line is a marker a
 * CI job can find to update its earlier comment instead of adding another.
 */

export const COMMENT_MARKER = '<!-- retry-topology diff -->';

const plural = (count: number, word: string, words = `${word}s`) => `${count} ${count === 1 ? word : words}`;

function findingLine(change: FindingChange): string {
  const found: Issue = change.found;
  const mark = found.severity === 'error' ? '✖' : '⚠';
  return `- ${mark} \`${change.owner}\`: ${formatIssue(found).replace(/\|/g, '\\|')}`;
}

function findingsSection(comparison: Comparison): string[] {
  const added = comparison.findings.filter((change) => change.kind === 'new');
  const resolved = comparison.findings.filter((change) => change.kind === 'resolved');
  if (added.length === 0 && resolved.length === 0)
    return comparison.unchangedFindings
      ? [`_No new or resolved findings (${plural(comparison.unchangedFindings, 'finding')} unchanged)._`]
      : [];
  const lines = ['#### Findings', ''];
  if (added.length) lines.push('New:', '', ...added.map(findingLine), '');
  if (resolved.length) lines.push('Resolved:', '', ...resolved.map(findingLine), '');
  if (comparison.unchangedFindings)
    lines.push(`_${plural(comparison.unchangedFindings, 'finding')} unchanged._`, '');
  return lines;
}

export function diffMarkdown(old: Side, next: Side, comparison: Comparison): string {
  const count = (status: string) => comparison.pairs.filter((pair) => pair.status === status).length;
  const lines = [COMMENT_MARKER, '### Retry policy diff', '', `\`${old.spec}\` → \`${next.spec}\``, ''];
  for (const side of [old, next]) if (side.note) lines.push(`> ${side.note}`, '');

  const sections = comparison.pairs.filter((pair) => pair.status !== 'unchanged').map(policySection);
  const changes = sections.flatMap((section) => section.changes);
  const losses = changes.filter((change) => change.risk === 'data-loss').length;
  const cautions = changes.filter((change) => change.risk === 'caution').length;

  if (sections.length === 0 && comparison.findings.length === 0) {
    lines.push(
      `**No changes**: ${plural(comparison.pairs.length, 'policy', 'policies')} compared, every plan and finding is the same.`,
    );
    return `${lines.join('\n')}\n`;
  }
  const summary = [
    `${count('changed')} changed, ${count('added')} added, ${count('removed')} removed, ${count('unchanged')} unchanged`,
    losses ? `🔴 ${plural(losses, 'change')} would lose messages` : '',
    cautions ? `🟡 ${plural(cautions, 'change')} to check` : '',
    comparison.newErrors ? `✖ ${plural(comparison.newErrors, 'new error')}` : '',
  ].filter(Boolean);
  lines.push(`**${summary.join(' · ')}**`, '');
  for (const section of sections) lines.push(...section.lines);
  lines.push(...findingsSection(comparison));
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
