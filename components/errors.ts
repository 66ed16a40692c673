import { RetryTopologyError } from '../policy/errors';

/** Why a component refused its arguments. Tests assert on the code, not on the message text. */
export type TopologyErrorCode =
  | 'plan-version-mismatch'
  | 'target-not-in-plan'
  | 'missing-option'
  | 'invalid-option'
  | 'inconsistent-plan'
  | 'provider-not-installed';

export class TopologyError extends RetryTopologyError {
  override readonly name: string = 'TopologyError';
  constructor(
    override readonly code: TopologyErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
