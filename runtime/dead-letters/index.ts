/**
 * Dead letters, whatever the broker: list, show, replay and purge over one interface that each
 * broker's adapter implements (runtime/rabbitmq, runtime/kafka, runtime/servicebus).
 */
export { ARCHIVE_FORMAT, type ArchivedDeadLetter, readArchive, writeArchive } from './archive';
export type { Claim, DeadLetterBroker, ReplayCopyOptions, Settled } from './broker';
export { DeadLetterError, type DeadLetterErrorCode } from './errors';
export { type DeadLetterFilter, matches } from './filter';
export {
  deadLetterLocations,
  deadLetterSubqueue,
  keepAttemptsUnsupported,
  replayGroupOf,
  requireDeadLetters,
} from './locations';
export {
  asEpochMs,
  asText,
  type DeadLetterMetadata,
  REPLAY_HEADERS,
  readDeadLetterMetadata,
  reasonGroup,
  replayedHeaders,
} from './metadata';
export { PACER_MARGIN_MS, type PacedTurn, Pacer } from './pacer';
export { checkPurgeOptions, type PurgeOptions } from './purge';
export { checkReplayOptions, type ReplayOptions, type ReplayProgress } from './replay';
export type { PurgeReport, ReplayReport } from './reports';
export { AGE_GROUPS, type Counted, type DeadLetterSummary, type Extreme } from './summary';
export { type DeadLetters, deadLetterCommands, SHOW_DEFAULT_LIMIT } from './tool';
export { type DeadLetter, type DeadLetterLocation, type DeadLetterReasonGroup, REASON_GROUPS } from './types';
