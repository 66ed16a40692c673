import { isAbsolute, join } from 'node:path';
import * as pulumi from '@pulumi/pulumi';
import {
  derivePlan,
  formatIssue,
  hasErrors,
  type Issue,
  loadPolicyFiles,
  PolicyError,
  type RetryPlan,
  sortIssues,
} from '../policy';

/** One line per issue, as the CLI prints them: `✖ file:line:col path: message [error code]`. */
export function formatIssues(issues: readonly Issue[]): string {
  return sortIssues(issues)
    .map((found) => `${found.severity === 'error' ? '✖' : '⚠'} ${formatIssue(found)}`)
    .join('\n');
}

/**
 * Loads and validates the policy files and derives one plan per policy. Errors stop the program
 * with every formatted issue and no stack trace (RunError); warnings are returned for the log.
 */
export async function loadPlans(
  files: readonly string[],
  root: string,
): Promise<{ plans: RetryPlan[]; warnings: string }> {
  const paths = files.map((file) => (isAbsolute(file) ? file : join(root, file)));
  const { policies, issues } = await loadPolicyFiles(paths);
  const relative = issues.map((found) =>
    found.file ? { ...found, file: relativeTo(found.file, root) } : found,
  );
  if (hasErrors(relative)) {
    throw new pulumi.RunError(
      `invalid retry policies:\n${formatIssues(relative.filter((found) => found.severity === 'error'))}`,
    );
  }
  try {
    const plans = policies.map(({ policy }) => derivePlan(policy));
    return { plans, warnings: formatIssues(relative) };
  } catch (error) {
    if (error instanceof PolicyError)
      throw new pulumi.RunError(`invalid retry policies:\n${formatIssues(error.issues)}`);
    throw error;
  }
}

function relativeTo(file: string, root: string): string {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return file.startsWith(prefix) ? file.slice(prefix.length) : file;
}
