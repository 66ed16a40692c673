import { RetryTopologyError } from './errors';

/**
 * How long every runtime's stop() waits for its running handlers, and the wait itself. One
 * default for all three: as Spring Kafka's shutdownTimeout, inside Kubernetes' 30 s grace
 * period, with room for the process to close its connections after.
 */
export const STOP_TIMEOUT_MS = 10_000;

/** The `stopTimeoutMs` option, checked: a number of milliseconds, 0 or more. */
export function stopTimeoutOf(ms: number | undefined): number {
  const value = ms ?? STOP_TIMEOUT_MS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RetryTopologyError(
      'invalid-option',
      `stopTimeoutMs is ${String(value)}: give the milliseconds stop() waits for running handlers, 0 or more`,
    );
  }
  return value;
}

/**
 * Waits for `work`, at most `ms`; true when it ended in time. The real clock, not the runtime's:
 * a stop must end even under a test's clock that nobody advances.
 */
export async function withinDeadline(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
