/** Public API of the policy core: policy → validated Policy → RetryPlan. */
export { ISSUE_CODES, type IssueCode, type Severity } from './codes';
export { formatDuration, parseDuration, toIso8601 } from './duration';
export * from './input';
export { formatIssue, formatPath, hasErrors, type Issue, PolicyError, sortIssues } from './issues';
export { policyJsonSchema } from './json-schema';
export {
  checkDocument,
  definePolicy,
  type LoadedPolicy,
  type LoadResult,
  loadPolicyFiles,
  loadPolicyText,
} from './load';
export { parsePolicy } from './parse';
export { derivePlan } from './plan/derive';
export type * from './plan/types';
export { PLAN_VERSION } from './plan/types';
export type * from './types';
