import type { RetryPlan } from '../../policy';
import { formatIssue } from '../../policy';
import {
  headline,
  resourceRows,
  rulesOf,
  sourceOf,
  TARGETS,
  type TargetKey,
  targetTitle,
  timelineRows,
} from './describe-plan';
import { markdownTable, textTable } from './table';

function targetsOf(plan: RetryPlan, only?: TargetKey): TargetKey[] {
  return TARGETS.filter((target) => plan.targets[target] && (!only || only === target));
}

export function planText(plan: RetryPlan, only?: TargetKey): string {
  const lines = [plan.policy, ...headline(plan).map((line) => `  ${line}`)];
  for (const target of targetsOf(plan, only)) {
    const rules = rulesOf(plan, target);
    if (!rules) continue;
    lines.push('', targetTitle(plan, target));
    const timeline = timelineRows(rules, sourceOf(plan, target));
    lines.push(
      ...textTable([
        ['attempt', 'wait', 'window', 'via'],
        ...timeline.map((row) => [row.attempt, row.wait, row.window, row.via]),
      ]),
    );
    if (!rules.jitterApplied && rules.jitter !== 'none')
      lines.push(`  (jitter "${rules.jitter}" cannot apply on this target)`);
    lines.push('', '  resources:');
    lines.push(
      ...textTable(
        resourceRows(plan, target).map((row) => [row.kind, row.name, row.detail]),
        '    ',
      ),
    );
  }
  if (plan.findings.length > 0)
    lines.push('', 'warnings:', ...plan.findings.map((found) => `  ⚠ ${formatIssue(found)}`));
  return `${lines.join('\n')}\n`;
}

export function planMarkdown(plan: RetryPlan, only?: TargetKey): string {
  const lines = [`### Retry policy \`${plan.policy}\``, '', ...headline(plan).map((line) => `- ${line}`)];
  for (const target of targetsOf(plan, only)) {
    const rules = rulesOf(plan, target);
    if (!rules) continue;
    lines.push('', `#### ${targetTitle(plan, target)}`, '');
    const timeline = timelineRows(rules, sourceOf(plan, target));
    lines.push(
      ...markdownTable(
        ['attempt', 'wait', 'window', 'via'],
        timeline.map((row) => [row.attempt, row.wait, row.window, `\`${row.via}\``]),
      ),
    );
    lines.push('', '<details><summary>resources</summary>', '');
    lines.push(
      ...markdownTable(
        ['kind', 'name', 'detail'],
        resourceRows(plan, target).map((row) => [row.kind, `\`${row.name}\``, row.detail]),
      ),
    );
    lines.push('', '</details>');
  }
  if (plan.findings.length > 0) lines.push('', ...plan.findings.map((found) => `> ⚠ ${formatIssue(found)}`));
  return `${lines.join('\n')}\n`;
}
