import { RetryTopologyError } from '../../policy/errors';

/**
 * What went wrong with the broker or the wiring. Match on `code`, never on the message.
 *
 * | code                | when                                         | what became of the message          |
 * | wrong-entity        | sender or receiver not on the plan's entity  | untouched (thrown before handling)  |
 * | not-peek-lock       | receiver in receiveAndDelete mode            | untouched (thrown before handling)  |
 * | schedule-refused    | scheduleMessages failed                      | kept: back when its lock expires    |
 * | settle-failed       | complete, dead-letter or abandon failed      | back when its lock expires          |
 * | lock-renewal-failed | renewMessageLock failed before an in-memory wait | immediate retries stop; the delayed path runs |
 */
export type ServiceBusErrorCode =
  | 'wrong-entity'
  | 'not-peek-lock'
  | 'schedule-refused'
  | 'settle-failed'
  | 'lock-renewal-failed';

export class ServiceBusRetryError extends RetryTopologyError {
  override readonly name = 'ServiceBusRetryError';
  /** The message the failed broker call was about, when there was one. */
  readonly messageId?: string;
  constructor(
    override readonly code: ServiceBusErrorCode,
    message: string,
    options?: { cause?: unknown; messageId?: string },
  ) {
    super(code, message, options);
    if (options?.messageId !== undefined) this.messageId = options.messageId;
  }
}
