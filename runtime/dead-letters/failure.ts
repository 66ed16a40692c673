import { DeadLetterError } from './errors';

/** Any failure from a broker call as a coded error; ours pass through unchanged. */
export function brokerFailure(error: unknown, what: string): DeadLetterError {
  if (error instanceof DeadLetterError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new DeadLetterError('broker-failed', `${what}: ${detail}`, { cause: error });
}
