import { RetryTopologyError } from '../../policy/errors';
import type { PurgeReport, ReplayReport } from './reports';

/**
 * What went wrong in a dead-letter command. Match on `code`, never on the message.
 *
 * | code                 | when                                                       | what changed                          |
 * | no-target            | the plan has no such target                                | nothing                               |
 * | no-dead-letters      | the plan's target names no dead-letter queue or topic      | nothing                               |
 * | invalid-plan         | a plan file that is not a retry-topology plan              | nothing                               |
 * | invalid-filter       | a filter value that cannot be read                         | nothing                               |
 * | invalid-option       | an option that cannot apply (a rate of 0, --keep-attempts where the broker counts) | nothing |
 * | broker-unreachable   | the first connection failed                                | nothing                               |
 * | broker-failed        | the broker went away or refused a call during the run      | what the summary says was replayed or purged; the rest is still dead-lettered |
 * | expect-required      | purge without --expect                                     | nothing                               |
 * | expect-mismatch      | purge whose selection is not the expected count            | nothing                               |
 * | archive-exists       | the archive file is already there                          | nothing                               |
 * | archive-failed       | the archive could not be written                           | nothing deleted                       |
 * | archive-invalid      | a file read as an archive is not one                       | nothing                               |
 * | progress-full        | Kafka: replay progress no longer fits the group's metadata | what was replayed so far              |
 */
export type DeadLetterErrorCode =
  | 'no-target'
  | 'no-dead-letters'
  | 'invalid-plan'
  | 'invalid-filter'
  | 'invalid-option'
  | 'broker-unreachable'
  | 'broker-failed'
  | 'expect-required'
  | 'expect-mismatch'
  | 'archive-exists'
  | 'archive-failed'
  | 'archive-invalid'
  | 'progress-full';

export class DeadLetterError extends RetryTopologyError {
  override readonly name = 'DeadLetterError';
  /** For a failure mid-run: what had been done when it stopped. */
  report?: ReplayReport | PurgeReport;
  constructor(
    override readonly code: DeadLetterErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
