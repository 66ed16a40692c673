import { derivePlan, formatPath, hasErrors, type Issue, type RetryPlan } from '../../policy';
import { fileKey, type Side } from './sources';

/**
 * Pairs the policies of two sides by name and says what happened to each, and which findings
 * are new or resolved. A policy with errors has no plan, but it is still there: a side that
 * breaks a policy shows it as changed (to "no plan"), not as removed.
 */

export interface PolicyState {
  /** Undefined when the policy has errors (or its document failed the schema). */
  plan?: RetryPlan;
  file: string;
}

export type PolicyStatus = 'added' | 'removed' | 'changed' | 'unchanged';

export interface PolicyPair {
  name: string;
  status: PolicyStatus;
  before?: PolicyState;
  after?: PolicyState;
}

export interface FindingChange {
  kind: 'new' | 'resolved';
  found: Issue;
  /** The policy name, or the file name for a document that never became a policy. */
  owner: string;
}

export interface Comparison {
  pairs: PolicyPair[];
  findings: FindingChange[];
  /** Findings present on both sides. */
  unchangedFindings: number;
  /**
   * Findings of the old side that the new side could not check again, its file having errors
   * before any policy was read: not resolved, and not known to be unchanged.
   */
  uncheckedFindings: number;
  /** Errors in the new side that the old side did not have: the diff fails on these. */
  newErrors: number;
}

function states(side: Side): Map<string, PolicyState> {
  const out = new Map<string, PolicyState>();
  for (const loaded of side.policies) {
    const name = loaded.policy.name;
    const own = side.issues.filter((found) => found.policy === name);
    // A duplicate name is one policy too many: the first one stands, as validate reports it.
    if (out.has(name)) continue;
    out.set(name, hasErrors(own) ? { file: loaded.file } : { ...planOf(loaded.policy), file: loaded.file });
  }
  return out;
}

/** derivePlan refuses a policy with errors; the loader has already reported them. */
function planOf(policy: Parameters<typeof derivePlan>[0]): { plan?: RetryPlan } {
  try {
    return { plan: derivePlan(policy) };
  } catch {
    return {};
  }
}

/**
 * Files that have errors but produced no policy: their policies may be hiding there. By the name
 * both sides share (fileKey), to the file's own path on this side.
 */
function brokenFiles(side: Side): Map<string, string> {
  const out = new Map<string, string>();
  for (const found of side.issues) {
    const key = fileKey(found.file);
    if (found.severity === 'error' && !found.policy && found.file && !out.has(key)) out.set(key, found.file);
  }
  return out;
}

const planText = (state: PolicyState | undefined) =>
  state?.plan ? JSON.stringify({ ...state.plan, findings: [] }) : '';

function pair(name: string, before: PolicyState | undefined, after: PolicyState | undefined): PolicyPair {
  const status: PolicyStatus = !before
    ? 'added'
    : !after
      ? 'removed'
      : planText(before) === planText(after) && Boolean(before.plan) === Boolean(after.plan)
        ? 'unchanged'
        : 'changed';
  return { name, status, ...(before ? { before } : {}), ...(after ? { after } : {}) };
}

/** Severity is part of it: a warning acknowledged in the new side shows as a new note with its reason. */
function findingKey(found: Issue): string {
  return [found.policy ?? fileKey(found.file), found.code, formatPath(found.path), found.severity].join(
    '\u0000',
  );
}

export function compareSides(old: Side, next: Side): Comparison {
  const before = states(old);
  const after = states(next);
  const brokenAfter = brokenFiles(next);
  const brokenBefore = brokenFiles(old);
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  // Policies of the old side whose file the new side could not read past its errors.
  const unread = new Set<string>();
  const pairs = names.map((name) => {
    const was = before.get(name);
    const now = after.get(name);
    // Gone from a file that now fails to parse: broken, not removed. Each side names its own file.
    const brokenNow = was && !now ? brokenAfter.get(fileKey(was.file)) : undefined;
    if (was && brokenNow) {
      unread.add(name);
      return pair(name, was, { file: brokenNow });
    }
    const brokenThen = !was && now ? brokenBefore.get(fileKey(now.file)) : undefined;
    if (now && brokenThen) return pair(name, { file: brokenThen }, now);
    return pair(name, was, now);
  });

  const oldKeys = new Set(old.issues.map(findingKey));
  const newKeys = new Set(next.issues.map(findingKey));
  const owner = (found: Issue) => found.policy ?? fileKey(found.file);
  // A finding is resolved only where the new side was checked: a policy with schema errors got
  // only the rules that could run on the rest, and an unread file none; that fixes nothing.
  const unchecked = (found: Issue) =>
    found.policy ? unread.has(found.policy) : brokenAfter.has(fileKey(found.file));
  const gone = old.issues.filter((found) => !newKeys.has(findingKey(found)));
  const findings: FindingChange[] = [
    ...next.issues
      .filter((found) => !oldKeys.has(findingKey(found)))
      .map((found) => ({ kind: 'new' as const, found, owner: owner(found) })),
    ...gone
      .filter((found) => !unchecked(found))
      .map((found) => ({ kind: 'resolved' as const, found, owner: owner(found) })),
  ];
  return {
    pairs,
    findings,
    unchangedFindings: next.issues.filter((found) => oldKeys.has(findingKey(found))).length,
    uncheckedFindings: gone.filter(unchecked).length,
    newErrors: findings.filter((change) => change.kind === 'new' && change.found.severity === 'error').length,
  };
}
