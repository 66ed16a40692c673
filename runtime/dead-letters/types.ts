import type { TargetName } from '../../policy/plan/targets';

/**
 * How a message came to be a dead letter. `permanent` and `exhausted` are the runtime's own
 * (`retry-dead-letter-reason`); `broker-rejected` is one the broker dead-lettered itself (RabbitMQ
 * `x-death`, a Service Bus reason such as MaxDeliveryCountExceeded); `unknown` carries neither,
 * such as a message put there by hand.
 */
export type DeadLetterReasonGroup = 'permanent' | 'exhausted' | 'broker-rejected' | 'unknown';

export const REASON_GROUPS: readonly DeadLetterReasonGroup[] = [
  'permanent',
  'exhausted',
  'broker-rejected',
  'unknown',
];

/** One dead letter as every broker's adapter reports it. */
export interface DeadLetter {
  /**
   * Stable while the message stays where it is: Kafka `partition:offset`, the Service Bus
   * sequence number (with its subqueue when there are two), on RabbitMQ a digest of the message
   * (identical messages share it, and are interchangeable).
   */
  id: string;
  /** The queue, topic or subqueue it is in. */
  location: string;
  messageId?: string;
  reason: DeadLetterReasonGroup;
  /** The broker's own word for a broker-rejected one (x-death reason, Service Bus DeadLetterReason). */
  brokerReason?: string;
  errorName?: string;
  errorMessage?: string;
  /** The attempt it died on, when it says. */
  attempt?: number;
  attemptInvalid?: string;
  /** The queue, topic or entity it failed on. */
  source?: string;
  firstFailureAt?: number;
  /** When it became a dead letter (epoch ms); the age and --since/--until read this. */
  deadLetteredAt?: number;
  /** How many times it was replayed before (from `retry-replay-count`). */
  replays: number;
  /** Kafka only, which keeps records: replayed or purged already, so no longer pending. */
  handled?: boolean;
  /** Headers or application properties as the broker client handed them over. */
  headers: Record<string, unknown>;
  /** The broker's message properties (content type, correlation id, key, partition …). */
  properties: Record<string, unknown>;
  body: Buffer;
}

/** Where one target keeps its dead letters, and where a replay sends them. */
export interface DeadLetterLocation {
  target: TargetName;
  kind: 'queue' | 'topic' | 'subqueue';
  name: string;
  /** Which dead letters it holds, in words. */
  holds: string;
  /** Where `dead-letters replay` sends them back to. */
  replayTo: string;
  /** Kafka: the consumer group whose committed offsets record replay progress. */
  progressGroup?: string;
  /**
   * Service Bus, a queue dead letters are forwarded to: only messages whose DeadLetterSource is one
   * of these entities are this target's (others may forward there too).
   */
  onlyFrom?: string[];
}
