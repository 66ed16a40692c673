import { formatIssue, formatPath, type Issue, type LoadedPolicy, sortIssues } from '../../policy';
import { printable, safeJson } from '../../policy/printable';

/**
 * validate's machine-readable outputs. JSON: every finding with its file, line, column, path,
 * code and severity, for tools. GitHub: workflow commands, so each finding is an annotation on
 * the pull request's changed line.
 */

export interface FindingsReport {
  tool: 'retry-topology';
  version: string;
  ok: boolean;
  summary: { files: number; policies: number; errors: number; warnings: number; notes: number };
  policies: Array<{ name: string; file: string; line: number }>;
  findings: Array<{
    file: string | null;
    line: number | null;
    column: number | null;
    path: Array<string | number>;
    pathText: string;
    code: string;
    severity: Issue['severity'];
    message: string;
    policy: string | null;
    acknowledged: string | null;
    docs: string;
  }>;
}

/** Where each code's page is, relative to the package (docs/codes/ ships with it). */
export const DOCS_URL = 'docs/codes';

export function findingsJson(
  input: { files: number; policies: readonly LoadedPolicy[]; issues: readonly Issue[] },
  version: string,
  ok: boolean,
): string {
  const count = (severity: Issue['severity']) =>
    input.issues.filter((found) => found.severity === severity).length;
  const report: FindingsReport = {
    tool: 'retry-topology',
    version,
    ok,
    summary: {
      files: input.files,
      policies: input.policies.length,
      errors: count('error'),
      warnings: count('warning'),
      notes: count('note'),
    },
    policies: input.policies.map((each) => ({ name: each.policy.name, file: each.file, line: each.line })),
    findings: sortIssues(input.issues).map((found) => ({
      file: found.file ?? null,
      line: found.line ?? null,
      column: found.column ?? null,
      path: [...found.path],
      pathText: formatPath(found.path),
      code: found.code,
      severity: found.severity,
      message: found.message,
      policy: found.policy ?? null,
      acknowledged: found.acknowledged ?? null,
      docs: `${DOCS_URL}/${found.code}.md`,
    })),
  };
  return safeJson(report);
}

/** GitHub's escaping for a workflow command's message, and (more) for its properties. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

const COMMAND: Record<Issue['severity'], string> = { error: 'error', warning: 'warning', note: 'notice' };

/** `::error file=policies/x.yaml,line=12,col=7,title=retry-topology invalid-duration::spec…` */
export function githubAnnotations(issues: readonly Issue[]): string {
  const lines = sortIssues(issues).map((found) => {
    const properties = [
      found.file ? `file=${escapeProperty(printable(found.file))}` : '',
      found.line === undefined ? '' : `line=${found.line}`,
      found.column === undefined ? '' : `col=${found.column}`,
      `title=${escapeProperty(`retry-topology ${found.code}`)}`,
    ].filter(Boolean);
    // The message is formatIssue without the location (the annotation carries it).
    const { file: _file, line: _line, column: _column, ...unlocated } = found;
    const text = formatIssue(unlocated);
    return `::${COMMAND[found.severity]} ${properties.join(',')}::${escapeData(text)}`;
  });
  return lines.length ? `${lines.join('\n')}\n` : '';
}
