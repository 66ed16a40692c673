import { type IssueCode, type Severity, severityOf } from './codes';
import { RetryTopologyError } from './errors';
import { printable } from './printable';

export type IssuePath = ReadonlyArray<string | number>;

/** The text a value was written as in the source file, when there is one (YAML reads 3.10 as 3.1). */
export type SourceText = (path: IssuePath) => string | undefined;

/** One finding about a policy. Data first; formatIssue turns it into a line for people. */
export interface Issue {
  code: IssueCode;
  severity: Severity;
  /** Where in the policy document, e.g. ["spec", "backoff", "initial"]. */
  path: IssuePath;
  message: string;
  file?: string;
  line?: number;
  column?: number;
  /** The policy's metadata.name when it is known. */
  policy?: string;
  /** A warning the policy acknowledges (spec.acknowledge): the reason given; severity is then note. */
  acknowledged?: string;
}

export function issue(code: IssueCode, path: IssuePath, message: string): Issue {
  return { code, severity: severityOf(code), path, message };
}

/** A key that is not a plain word is quoted, so an unknown key cannot pose as a path. */
const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** "spec.backoff.delays[2]", `spec["odd key"]` */
export function formatPath(path: IssuePath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else if (!PLAIN_KEY.test(part)) out += `[${JSON.stringify(part)}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out === '' ? '(document)' : printable(out);
}

/** Where a finding is: `policies/billing.yaml:12:7`, or just the file. */
export function formatLocation(found: Issue): string {
  if (!found.file) return '';
  return `${printable(found.file)}${found.line === undefined ? '' : `:${found.line}:${found.column ?? 1}`}`;
}

/**
 * `policies/billing.yaml:12:7 spec.backoff.initial: expected …, got "fast" [error invalid-duration]`.
 * One line whatever the policy holds: text from the file is escaped (printable).
 */
export function formatIssue(found: Issue): string {
  const where = found.file ? `${formatLocation(found)} ` : '';
  const acknowledged = found.acknowledged ? `; acknowledged: ${JSON.stringify(found.acknowledged)}` : '';
  return `${where}${formatPath(found.path)}: ${printable(found.message + acknowledged)} [${found.severity} ${found.code}]`;
}

export function hasErrors(found: readonly Issue[]): boolean {
  return found.some((each) => each.severity === 'error');
}

/** Findings that fail `validate --strict`: errors and warnings, not notes. */
export function hasWarnings(found: readonly Issue[]): boolean {
  return found.some((each) => each.severity === 'warning');
}

/** By code unit: the same order on every machine, whatever its locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const RANK = { error: 0, warning: 1, note: 2 } as const;

/** Errors first, then warnings, then notes; within each by file, line and column, so output is stable. */
export function sortIssues(found: readonly Issue[]): Issue[] {
  const rank = (each: Issue) => RANK[each.severity];
  return [...found].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      compareText(a.file ?? '', b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      compareText(formatPath(a.path), formatPath(b.path)),
  );
}

/** Thrown by the TypeScript API when a policy object is invalid. Holds every issue at once. */
export class PolicyError extends RetryTopologyError {
  override readonly name: string = 'PolicyError';
  override readonly code = 'invalid-policy' as const;
  constructor(readonly issues: Issue[]) {
    super(
      'invalid-policy',
      `invalid retry policy:\n${issues.map((each) => `  ✖ ${formatIssue(each)}`).join('\n')}`,
    );
  }
}
