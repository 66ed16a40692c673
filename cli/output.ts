import { formatIssue, type Issue, sortIssues } from '../policy';

/** The CLI's one place for writing; tests capture it instead of process.stdout. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

export function printIssues(output: Output, issues: readonly Issue[]): void {
  for (const found of sortIssues(issues)) {
    const mark = found.severity === 'error' ? '✖' : '⚠';
    output.err(`${mark} ${formatIssue(found)}`);
  }
}

export function summary(issues: readonly Issue[]): string {
  const errors = issues.filter((found) => found.severity === 'error').length;
  const warnings = issues.length - errors;
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  return `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
}

/** Exit codes: 0 fine, 1 the policy has errors, 2 the command line is wrong. */
export const EXIT = { ok: 0, invalid: 1, usage: 2, internal: 3 } as const;
