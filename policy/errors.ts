/**
 * The base of every error retry-topology throws, from every entry point: the policy's
 * PolicyError, the runtime's KafkaRetryError, ServiceBusRetryError, DeadLetterError and the
 * rest, the components' TopologyError. One `catch` can tell ours from everything else:
 *
 *   catch (error) { if (error instanceof RetryTopologyError) log(error.code, error.cause); }
 *
 * `code` is stable: match on it, never on the message. `cause`, when there is one, is the error
 * underneath (a broker client's, the file system's). Here, at the bottom of the package, so that
 * the policy, the runtime, the components and the CLI can all extend it without importing each
 * other.
 */
export class RetryTopologyError extends Error {
  override readonly name: string = 'RetryTopologyError';
  /**
   * Set by Error itself (ES2022), declared here for programs compiled with an older `lib`
   * (`pulumi new typescript` has ES2020), whose Error type has no `cause`.
   */
  declare cause?: unknown;
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
