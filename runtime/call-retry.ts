import { exponentialDelays, jitterRange } from '../policy/plan/timeline';
import type { ClassificationPlan } from '../policy/plan/types';
import type { Jitter } from '../policy/types';
import { drawWait, honourRetryAfter } from './backoff';
import { classify } from './classify';
import { type Clock, mathRandom, type Random, systemClock } from './clock';
import { RetryTopologyError } from './errors';
import { retryAfterOf } from './retry-after';

/**
 * Retries for an outgoing call inside a handler: only idempotent requests, only
 * transient failures, exponential backoff with jitter from the same code as the plan, a
 * per-attempt timeout inside a total budget, and Retry-After honoured. Declare its attempts in
 * the policy's `innerLayers` so amplification is counted.
 */
export interface CallRetryOptions {
  /** Calls in all, the first one included. */
  maxAttempts: number;
  backoff: { initialMs: number; multiplier?: number; maxMs?: number };
  jitter?: Jitter;
  /** Abort one call after this long; it then counts as a transient timeout. */
  attemptTimeoutMs?: number;
  /** No retry starts once waiting for it would pass this budget, counted from the first call. */
  totalBudgetMs?: number;
  /** Only idempotent requests (GET, or with an idempotency key) are ever retried. */
  idempotent: boolean;
  classification?: ClassificationPlan;
  clock?: Clock;
  random?: Random;
  signal?: AbortSignal;
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

const CALL_DEFAULTS = {
  multiplier: 2,
  jitter: 'full' as Jitter,
  /** Retry 408, 429, 5xx and timeouts; nothing else. */
  classification: {
    transient: {
      errorNames: ['TimeoutError'],
      errorCodes: ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN'],
      httpStatuses: [408, 429, ...Array.from({ length: 100 }, (_, index) => 500 + index)],
    },
    permanent: { errorNames: [], errorCodes: [], httpStatuses: [] },
    unknown: 'permanent',
  } satisfies ClassificationPlan,
};

/** Raised for a call that ran past attemptTimeoutMs; transient by its name. */
export class AttemptTimeoutError extends RetryTopologyError {
  override readonly name = 'TimeoutError';
  override readonly code = 'attempt-timeout' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super('attempt-timeout', message, options);
  }
}

async function withTimeout<T>(
  call: (context: { signal: AbortSignal; attempt: number }) => Promise<T>,
  attempt: number,
  timeoutMs: number | undefined,
  clock: Clock,
  outer: AbortSignal | undefined,
): Promise<T> {
  const controller = new AbortController();
  const abortFromOuter = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', abortFromOuter, { once: true });
  const timer = new AbortController();
  try {
    if (timeoutMs === undefined) return await call({ signal: controller.signal, attempt });
    const timeout = clock.sleep(timeoutMs, timer.signal).then(() => {
      const error = new AttemptTimeoutError(`attempt ${attempt} timed out after ${timeoutMs} ms`);
      controller.abort(error);
      throw error;
    });
    return await Promise.race([call({ signal: controller.signal, attempt }), timeout]);
  } finally {
    timer.abort();
    outer?.removeEventListener('abort', abortFromOuter);
  }
}

export async function callWithRetry<T>(
  call: (context: { signal: AbortSignal; attempt: number }) => Promise<T>,
  options: CallRetryOptions,
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? mathRandom;
  const classification = options.classification ?? CALL_DEFAULTS.classification;
  const jitter = options.jitter ?? CALL_DEFAULTS.jitter;
  const maxAttempts = options.idempotent ? Math.max(1, options.maxAttempts) : 1;
  const delays = exponentialDelays(
    { multiplier: CALL_DEFAULTS.multiplier, ...options.backoff },
    maxAttempts - 1,
  );
  const started = clock.now();

  for (let attempt = 1; ; attempt++) {
    const remaining =
      options.totalBudgetMs === undefined ? undefined : options.totalBudgetMs - (clock.now() - started);
    const timeout =
      remaining === undefined
        ? options.attemptTimeoutMs
        : Math.min(remaining, options.attemptTimeoutMs ?? remaining);
    try {
      return await withTimeout(call, attempt, timeout, clock, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const delay = delays[attempt - 1];
      if (delay === undefined || classify(error, classification).kind === 'permanent') throw error;
      const range = jitterRange(delay, jitter);
      const wait = honourRetryAfter(drawWait(range, random), range, retryAfterOf(error, clock.now()));
      if (options.totalBudgetMs !== undefined && clock.now() - started + wait >= options.totalBudgetMs)
        throw error;
      options.onRetry?.({ attempt, delayMs: wait, error });
      await clock.sleep(wait, options.signal);
    }
  }
}
