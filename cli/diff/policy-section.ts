import type { RetryPlan } from '../../policy';
import { TARGETS, type TargetName } from '../../policy/plan/targets';
import {
  deadLetterLines,
  headline,
  range,
  rulesOf,
  sourceOf,
  type TimelineRow,
  targetTitle,
  timelineRows,
} from '../format/describe-plan';
import { code, markdownTable } from '../format/markdown';
import type { PolicyPair } from './compare';
import { resourceChanges } from './resources';
import type { ResourceChange, Risk } from './risk';

/**
 * One policy's part of the diff: what changed in its numbers, its timelines and its resources.
 * Every value from a policy is a code span (format/markdown.ts).
 */

export const RISK_LABEL: Record<Risk, string> = {
  'data-loss': '🔴 data loss',
  caution: '🟡 caution',
  safe: '🟢 safe',
};
const NO_PLAN = '(no plan: errors)';
const value = (text: string | undefined) => (text === undefined ? '—' : code(text));

/** Rows of "what | before | after" for the facts a reviewer weighs, only where they differ. */
function factRows(before: RetryPlan | undefined, after: RetryPlan | undefined): string[][] {
  const rows: string[][] = [];
  const add = (what: string, was: string | undefined, now: string | undefined) => {
    if (was !== now) rows.push([what, value(was), value(now)]);
  };
  add('maxAttempts', before && String(before.maxAttempts), after && String(after.maxAttempts));
  const amplification = (plan: RetryPlan) =>
    `${plan.amplification.total} calls (budget ${plan.amplification.budget})`;
  add('amplification', before && amplification(before), after && amplification(after));
  // The headline's other lines (classification, idempotency), compared by their leading word.
  const lines = (plan: RetryPlan | undefined) =>
    new Map(
      (plan ? headline(plan).slice(1) : []).map((line) => [
        line.split(':')[0] ?? line,
        line.slice(line.indexOf(':') + 1).trim(),
      ]),
    );
  const was = lines(before);
  const now = lines(after);
  for (const key of new Set([...was.keys(), ...now.keys()]))
    if (key !== 'amplification') add(key, was.get(key), now.get(key));
  for (const target of TARGETS) {
    const a = before && rulesOf(before, target);
    const b = after && rulesOf(after, target);
    add(`${target} retry window`, a && range(a.retryWindowMs), b && range(b.retryWindowMs));
    add(`${target} jitter`, a && jitterText(a), b && jitterText(b));
    const places = (plan: RetryPlan | undefined) =>
      plan?.targets[target] ? deadLetterLines(plan, target).join('; ') : undefined;
    add(`${target} dead letters`, places(before), places(after));
  }
  return rows;
}

function jitterText(rules: { jitter: string; jitterApplied: boolean }): string {
  return rules.jitterApplied || rules.jitter === 'none'
    ? rules.jitter
    : `${rules.jitter} (cannot apply here)`;
}

function timelineTable(
  before: RetryPlan | undefined,
  after: RetryPlan | undefined,
  target: TargetName,
): string[] {
  const rows = (plan: RetryPlan | undefined) => {
    const rules = plan && rulesOf(plan, target);
    return new Map<string, TimelineRow>(
      rules && plan ? timelineRows(rules, sourceOf(plan, target)).map((row) => [row.attempt, row]) : [],
    );
  };
  const was = rows(before);
  const now = rows(after);
  if (JSON.stringify([...was]) === JSON.stringify([...now])) return ['Timeline unchanged.'];
  const attempts = [...new Set([...was.keys(), ...now.keys()])].sort(
    (a, b) => (a === 'then' ? 1 : 0) - (b === 'then' ? 1 : 0) || Number(a) - Number(b),
  );
  const changed = (a: string | undefined, b: string | undefined) =>
    a === b ? (b ?? '—') : `**${b ?? '—'}**`;
  // Waits and windows are durations the plan computed ("1s–2s"): no policy text in them.
  return markdownTable(
    ['attempt', 'wait before', 'wait after', 'window before', 'window after', 'via (after)'],
    attempts.map((attempt) => {
      const a = was.get(attempt);
      const b = now.get(attempt);
      return [
        attempt,
        a?.wait ?? '—',
        changed(a?.wait, b?.wait),
        a?.window ?? '—',
        changed(a?.window, b?.window),
        code(b?.via ?? a?.via ?? ''),
      ];
    }),
  );
}

function changeTable(changes: readonly ResourceChange[]): string[] {
  if (changes.length === 0) return ['No resource changes.'];
  const table = markdownTable(
    ['risk', 'change', 'resource', 'what happens'],
    changes.map((change) => [
      RISK_LABEL[change.risk],
      change.change,
      `${change.kind} ${code(change.name)}`,
      change.note,
    ]),
  );
  if (changes.some((change) => change.risk !== 'safe')) return table;
  // Only safe changes: folded, so the risky ones elsewhere stand out.
  return [
    `<details><summary>${changes.length} resource change${changes.length === 1 ? '' : 's'}, all safe</summary>`,
    '',
    ...table,
    '',
    '</details>',
  ];
}

export function policySection(pair: PolicyPair): { lines: string[]; changes: ResourceChange[] } {
  const before = pair.before?.plan;
  const after = pair.after?.plan;
  const lines: string[] = [];
  if (pair.before && !before) lines.push(`Before: ${NO_PLAN} in ${code(pair.before.file)}.`, '');
  if (pair.after && !after)
    lines.push(`After: ${NO_PLAN} in ${code(pair.after.file)}; see the findings below.`, '');
  // A policy that exists on both sides but has no plan on one is broken, not gone: comparing
  // against nothing would list every resource as deleted or created.
  if (pair.before && pair.after && (!before || !after)) return { lines, changes: [] };
  const facts = factRows(before, after);
  if (facts.length > 0) lines.push(...markdownTable(['', 'before', 'after'], facts), '');
  const all: ResourceChange[] = [];
  for (const target of TARGETS) {
    if (!before?.targets[target] && !after?.targets[target]) continue;
    const plan = after?.targets[target] ? after : before;
    lines.push(`**${target}**: ${plan ? code(targetTitle(plan, target)) : ''}`, '');
    lines.push(...timelineTable(before, after, target), '');
    const changes = resourceChanges(before, after, target);
    all.push(...changes);
    lines.push(...changeTable(changes), '');
  }
  return { lines, changes: all };
}
