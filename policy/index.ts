/** Public API of the policy core: policy → validated Policy → RetryPlan. */
export { ISSUE_CODES, type IssueCode, type Severity, WARNING_CODES } from './codes';
export { formatDuration, parseDuration, toIso8601 } from './duration';
export { RetryTopologyError } from './errors';
export * from './input';
export {
  compareText,
  formatIssue,
  formatLocation,
  formatPath,
  hasErrors,
  hasWarnings,
  type Issue,
  type IssuePath,
  PolicyError,
  sortIssues,
} from './issues';
export { policyJsonSchema } from './json-schema';
export {
  checkDocument,
  definePolicy,
  type LoadResult,
  loadPolicyFiles,
  loadPolicyText,
  MAX_FILE_BYTES,
  type PolicyFile,
} from './load';
export type { LoadedPolicy } from './loaded';
export { parsePolicy } from './parse';
export { derivePlan } from './plan/derive';
export { kafkaReplication, QUORUM_REPLICAS_ARGUMENT, quorumReplication } from './plan/replication';
export type * from './plan/types';
export { PLAN_VERSION } from './plan/types';
export { hasUnsafeCharacters, printable, safeJson } from './printable';
export type * from './types';
