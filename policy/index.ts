/**
 * Public API of the policy core: policy → validated Policy → RetryPlan. Every name is listed, so
 * a new export is a decision (api/retry-topology.api.md shows the surface; docs/versioning.md).
 */
export { ISSUE_CODES, type IssueCode, type Severity, WARNING_CODES } from './codes';
export { formatDuration, parseDuration } from './duration';
export { RetryTopologyError } from './errors';
export {
  API_VERSION,
  type BackoffInput,
  type ClassifyInput,
  type DurationText,
  type ErrorMatchInput,
  type KafkaTargetInput,
  type PolicyInput,
  type PolicySpecInput,
  type RabbitTargetInput,
  type ServiceBusQueueInput,
  type ServiceBusSubscriptionInput,
  type ServiceBusTargetInput,
} from './input';
export {
  formatIssue,
  formatLocation,
  formatPath,
  hasErrors,
  hasWarnings,
  type Issue,
  type IssuePath,
  PolicyError,
  type SourceText,
  sortIssues,
} from './issues';
export { policyJsonSchema } from './json-schema';
export {
  checkDocument,
  definePolicy,
  type LoadResult,
  loadPolicyFiles,
  loadPolicyText,
  type PolicyFile,
} from './load';
export type { LoadedPolicy } from './loaded';
export { parsePolicy } from './parse';
export { derivePlan } from './plan/derive';
export {
  type ClassificationPlan,
  type DeliveryRules,
  type KafkaPlan,
  type KafkaTopicSpec,
  type Level,
  PLAN_VERSION,
  type RabbitBindingSpec,
  type RabbitExchangeSpec,
  type RabbitMqPlan,
  type RabbitPermissionSpec,
  type RabbitPolicySpec,
  type RabbitQueueSpec,
  type RangeMs,
  type Replication,
  type RetryPlan,
  type ServiceBusDeadLetterQueue,
  type ServiceBusEntityProperties,
  type ServiceBusEntitySpec,
  type ServiceBusPlan,
  type Stage,
} from './plan/types';
export type {
  Backoff,
  Classification,
  Environment,
  ErrorMatch,
  Jitter,
  KafkaAcks,
  KafkaTarget,
  Policy,
  RabbitMode,
  RabbitTarget,
  ServiceBusCommon,
  ServiceBusTarget,
} from './types';
