import { RetryTopologyError } from '../policy/errors';

export { RetryTopologyError };

/**
 * Markers a handler can throw to say what a failure is, whatever the policy's rules say:
 * `throw new PermanentError('unsupported currency XXX')`. They win over every rule.
 */
export class PermanentError extends RetryTopologyError {
  override readonly name: string = 'PermanentError';
  override readonly code = 'permanent' as const;
  readonly retryable = false as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('permanent', message, options);
  }
}

export class TransientError extends RetryTopologyError {
  override readonly name: string = 'TransientError';
  override readonly code = 'transient' as const;
  readonly retryable = true as const;
  /** Optional hint, in milliseconds, for when to try again. */
  readonly retryAfterMs?: number;
  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super('transient', message, options);
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * The codes of the RetryTopologyErrors the runtime itself raises (its broker adapters raise their
 * own subclasses: KafkaRetryError, ServiceBusRetryError, DeadLetterError).
 */
export type RuntimeErrorCode =
  | 'no-target'
  | 'publish-refused'
  | 'publish-failed'
  | 'consumer-stopped'
  | 'management-api'
  | 'broker-too-old'
  | 'vhost-mismatch'
  | 'consumer-cancelled'
  | 'channel-closed'
  | 'connect-timeout'
  | 'invalid-option';
