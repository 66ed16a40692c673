import type { RangeMs } from '../policy/plan/types';
import type { Random } from './clock';

/**
 * Jitter happens here, and only here: the plan gives each wait as a range (full jitter is
 * [0, d], equal jitter [d/2, d], none [d, d]; see policy/plan/timeline.ts) and the runtime draws
 * uniformly from it. With a random source pinned to 0.5 tests get exact waits.
 */
export function drawWait(range: RangeMs, random: Random): number {
  const spread = range.max - range.min;
  if (spread <= 0) return range.min;
  return range.min + Math.floor(random() * (spread + 1));
}

/** A server's Retry-After moves the wait, but only within the level's bounds. */
export function honourRetryAfter(drawn: number, range: RangeMs, retryAfterMs: number | undefined): number {
  if (retryAfterMs === undefined) return drawn;
  return Math.min(range.max, Math.max(range.min, retryAfterMs, drawn));
}
