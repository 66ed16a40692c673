/// <reference types="node" preserve="true" />
// Kept in the declarations: they use Node's types (Buffer, AbortSignal), and TypeScript 6 no longer
// loads @types/node unless a project lists it.
/**
 * The runtime: handler logic that matches a plan exactly. Zero dependencies of its own; broker
 * clients (amqplib, kafkajs, @azure/service-bus) and @opentelemetry/api are optional peers.
 */
export type { TargetName } from '../policy/plan/targets';
export { type AttemptReading, MAX_ATTEMPT_VALUE, readAttempt } from './attempt';
export { drawWait, honourRetryAfter } from './backoff';
export { AttemptTimeoutError, type CallRetryOptions, callWithRetry } from './call-retry';
export { type Classified, classify, type FailureKind } from './classify';
export { type Clock, mathRandom, type Random, systemClock } from './clock';
export { type DeadLetterInfo, deadLetterHeaders, describeError, HEADERS } from './dead-letter';
export {
  ARCHIVE_FORMAT,
  type ArchivedDeadLetter,
  type Counted,
  type DeadLetter,
  DeadLetterError,
  type DeadLetterErrorCode,
  type DeadLetterFilter,
  type DeadLetterLocation,
  type DeadLetterReasonGroup,
  type DeadLetterSummary,
  type DeadLetters,
  deadLetterLocations,
  type Extreme,
  type PurgeOptions,
  type PurgeReport,
  REPLAY_HEADERS,
  type ReplayOptions,
  type ReplayProgress,
  type ReplayReport,
  readArchive,
} from './dead-letters';
export { type DeadLetterReason, type Decision, type DecisionInput, decide, type TargetRules } from './decide';
export { PermanentError, RetryTopologyError, type RuntimeErrorCode, TransientError } from './errors';
export {
  type CounterLike,
  createMetrics,
  type HistogramLike,
  type MeterLike,
  noMetrics,
  type RetryMetrics,
} from './metrics';
export { parseRetryAfter, retryAfterOf } from './retry-after';
export { targetRules } from './rules';
export { type FinalDecision, type HandlerFailure, type HandlerRun, runHandler } from './run-handler';
