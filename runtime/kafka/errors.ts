/**
 * What went wrong with the broker or the wiring. Match on `code`, never on the message.
 *
 * | code                       | when                                                  | what became of the record                      |
 * | ordering-needs-view        | park-key ordering without `admin` and `viewConsumer`  | nothing: thrown by createKafkaRetry            |
 * | partition-count-mismatch   | a chain topic's partition count differs from the plan | nothing: thrown by declareKafkaTopology        |
 * | unknown-topic              | a record from a topic that is not in the plan         | left uncommitted, its partition held           |
 * | produce-failed             | a retry, parking or dead-letter copy was not acked    | not committed: redelivered after a back-off    |
 * | step-failed                | the fault hook threw between produce and commit       | not committed: redelivered after a back-off    |
 * | chain-view-failed          | the chain view could not read the broker's state      | not committed: redelivered after a back-off    |
 * | commit-failed              | an offset commit failed                               | the next commit covers it, or it is redelivered |
 */
export type KafkaRetryErrorCode =
  | 'ordering-needs-view'
  | 'partition-count-mismatch'
  | 'unknown-topic'
  | 'produce-failed'
  | 'step-failed'
  | 'chain-view-failed'
  | 'commit-failed';

export class KafkaRetryError extends Error {
  override readonly name = 'KafkaRetryError';
  constructor(
    readonly code: KafkaRetryErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
