import { type IssueCode, type Severity, severityOf } from './codes';

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
}

export function issue(code: IssueCode, path: IssuePath, message: string): Issue {
  return { code, severity: severityOf(code), path, message };
}

/** "spec.backoff.delays[2]" */
export function formatPath(path: IssuePath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? part : `.${part}`;
  }
  return out === '' ? '(document)' : out;
}

/** `policies/billing.yaml:12:7 spec.backoff.initial: expected …, got "fast" [invalid-duration]` */
export function formatIssue(found: Issue): string {
  const where = found.file
    ? `${found.file}${found.line === undefined ? '' : `:${found.line}:${found.column ?? 1}`} `
    : '';
  const mark = found.severity === 'error' ? 'error' : 'warning';
  return `${where}${formatPath(found.path)}: ${found.message} [${mark} ${found.code}]`;
}

export function hasErrors(found: readonly Issue[]): boolean {
  return found.some((each) => each.severity === 'error');
}

/** Errors first, then by file, line and column, so output is stable. */
export function sortIssues(found: readonly Issue[]): Issue[] {
  const rank = (each: Issue) => (each.severity === 'error' ? 0 : 1);
  return [...found].sort(
    (a, b) =>
      rank(a) - rank(b) ||
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      formatPath(a.path).localeCompare(formatPath(b.path)),
  );
}

/** Thrown by the TypeScript API when a policy object is invalid. Holds every issue at once. */
export class PolicyError extends Error {
  readonly code = 'invalid-policy' as const;
  constructor(readonly issues: Issue[]) {
    super(`invalid retry policy:\n${issues.map((each) => `  ✖ ${formatIssue(each)}`).join('\n')}`);
    this.name = 'PolicyError';
  }
}
