import { RetryTopologyError } from '../../policy/errors';

/**
 * What went wrong with the broker or the wiring. Match on `code`, never on the message.
 *
 * - per-key-needs-admin: run(kafka) for a plan that keeps key order, without `admin`.
 * - per-key-needs-run: runMain or runRetry for a plan that keeps key order, where one consumer
 *   reads the whole chain: use run(kafka) (thrown by runMain and runRetry).
 * - invalid-option: an option out of its range, such as `concurrency: 0` (thrown at setup).
 * - partition-count-mismatch: a chain topic's partition count differs from the plan
 *   (thrown by declareKafkaTopology).
 * - topics-not-visible: topics declareKafkaTopology created did not show up in the broker's
 *   metadata in time.
 * - unknown-topic: a record from a topic that is not in the plan; left uncommitted, partition held.
 * - produce-failed: a retry, parking or dead-letter copy was not acked; not committed, read again
 *   after a back-off.
 * - copy-unsendable: the broker refused a copy for good (too large, malformed, not allowed); the
 *   record is dead-lettered with the reason, and, when its dead letter is refused too, dead-lettered
 *   without its value (`retry-value-dropped` says where the value is).
 * - step-failed: a step between produce and commit failed (an unexpected error in a batch, or the
 *   fault tests' hook); as produce-failed.
 * - chain-read-failed: per-key order could not read the retry topics' commits
 *   and ends after an assignment; the chain stays paused and is tried again after a back-off.
 * - consumer-crashed: a consumer the runtime made (run(kafka)) crashed; reported as `failed`
 *   (partition -1), and `closed` rejects with it when the client will not restart the consumer.
 * - chain-split: per-key order, and the member holds some partitions of a chain
 *   but not all (the group does not use range assignment, or a topic's partition count differs):
 *   the chain stays paused until the next assignment.
 * - commit-failed: an offset commit failed; the next commit covers it, or the record is read again.
 * - producer-broken: the producer can never send again (KafkaJS's idempotent producer after a
 *   broker failed mid-request, librdkafka's fatal errors). The copies are not committed; the
 *   runtime asks `replaceProducer` for a new producer and sends them again with it, or, without
 *   that option, stops, and `closed` rejects with this error: restart the process.
 */
export type KafkaRetryErrorCode =
  | 'per-key-needs-admin'
  | 'per-key-needs-run'
  | 'invalid-option'
  | 'partition-count-mismatch'
  | 'topics-not-visible'
  | 'unknown-topic'
  | 'produce-failed'
  | 'copy-unsendable'
  | 'step-failed'
  | 'chain-read-failed'
  | 'chain-split'
  | 'consumer-crashed'
  | 'commit-failed'
  | 'producer-broken';

export class KafkaRetryError extends RetryTopologyError {
  override readonly name = 'KafkaRetryError';
  constructor(
    override readonly code: KafkaRetryErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
