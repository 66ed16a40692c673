import type { Issue, RetryPlan } from '../../policy';
import { formatIssue } from '../../policy';
import { TARGETS, type TargetName } from '../../policy/plan/targets';
import { printable } from '../../policy/printable';
import {
  deadLetterLines,
  headline,
  replicationSummary,
  resourceRows,
  rulesOf,
  sourceOf,
  targetTitle,
  timelineRows,
} from './describe-plan';
import { code, markdownTable } from './markdown';
import { textTable } from './table';

function targetsOf(plan: RetryPlan, only?: TargetName): TargetName[] {
  return TARGETS.filter((target) => plan.targets[target] && (!only || only === target));
}

const MARK = { error: '✖', warning: '⚠', note: 'ℹ' } as const;

/** Warnings, and acknowledged ones as notes with their reason. */
function findingsTitle(findings: readonly Issue[]): string {
  return findings.some((found) => found.severity === 'warning') ? 'findings:' : 'notes:';
}

export function planText(plan: RetryPlan, only?: TargetName): string {
  const lines = [printable(plan.policy), ...headline(plan).map((line) => `  ${printable(line)}`)];
  for (const target of targetsOf(plan, only)) {
    const rules = rulesOf(plan, target);
    if (!rules) continue;
    lines.push('', printable(targetTitle(plan, target)));
    const timeline = timelineRows(rules, sourceOf(plan, target));
    lines.push(
      ...textTable([
        ['attempt', 'wait', 'window', 'via'],
        ...timeline.map((row) => [row.attempt, row.wait, row.window, row.via]),
      ]),
    );
    if (!rules.jitterApplied && rules.jitter !== 'none')
      lines.push(`  (jitter "${rules.jitter}" cannot apply on this target)`);
    lines.push(
      '',
      '  dead letters:',
      ...deadLetterLines(plan, target).map((line) => `    ${printable(line)}`),
    );
    lines.push('', `  ${replicationSummary(plan, target)}`);
    lines.push('', '  resources:');
    lines.push(
      ...textTable(
        resourceRows(plan, target).map((row) => [row.kind, row.name, row.detail]),
        '    ',
      ),
    );
  }
  if (plan.findings.length > 0)
    lines.push(
      '',
      findingsTitle(plan.findings),
      ...plan.findings.map((found) => `  ${MARK[found.severity]} ${formatIssue(found)}`),
    );
  return `${lines.join('\n')}\n`;
}

/** The same in Markdown; every value from the policy is a code span (format/markdown.ts). */
export function planMarkdown(plan: RetryPlan, only?: TargetName): string {
  const lines = [
    `### Retry policy ${code(plan.policy)}`,
    '',
    ...headline(plan).map((line) => `- ${code(line)}`),
  ];
  for (const target of targetsOf(plan, only)) {
    const rules = rulesOf(plan, target);
    if (!rules) continue;
    lines.push('', `#### ${code(targetTitle(plan, target))}`, '');
    const timeline = timelineRows(rules, sourceOf(plan, target));
    lines.push(
      ...markdownTable(
        ['attempt', 'wait', 'window', 'via'],
        timeline.map((row) => [row.attempt, row.wait, row.window, code(row.via)]),
      ),
    );
    lines.push('', 'Dead letters:', '', ...deadLetterLines(plan, target).map((line) => `- ${code(line)}`));
    lines.push('', replicationSummary(plan, target));
    lines.push('', '<details><summary>resources</summary>', '');
    lines.push(
      ...markdownTable(
        ['kind', 'name', 'detail'],
        resourceRows(plan, target).map((row) => [row.kind, code(row.name), code(row.detail)]),
      ),
    );
    lines.push('', '</details>');
  }
  if (plan.findings.length > 0)
    lines.push(
      '',
      ...plan.findings.map((found) => `> ${MARK[found.severity]} ${code(formatIssue(found), 1_000)}`),
    );
  return `${lines.join('\n')}\n`;
}
