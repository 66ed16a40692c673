import { durationStep } from '../render/time-axis';

/**
 * Retry arrivals after recovery as a rate over time. Rates are counted in fixed buckets (1 s by
 * default, the unit people quote rates in); a long tail gets wider buckets so a chart stays
 * under MAX_BUCKETS bars. Every scenario of one run shares the bucket width, or their peaks
 * could not be compared.
 */

export const DEFAULT_BUCKET_MS = 1_000;
const MAX_BUCKETS = 300;

export interface RateStats {
  /** Retries that reached the dependency after it came back. */
  retries: number;
  bucketMs: number;
  /** Retries per bucket, from the moment of recovery. */
  counts: number[];
  peakPerSecond: number;
  /** Start of the busiest bucket, ms after recovery. */
  peakAtMs: number;
  /** Retries per second averaged over the time until the backlog clears. */
  meanPerSecond: number;
  /** peak / mean: 1 is perfectly even; high means a wave. */
  peakToMean: number;
  /** From recovery to the last retry: when nothing from the outage is waiting any more. */
  clearMs: number;
}

export function bucketWidth(horizonMs: number, requestedMs = DEFAULT_BUCKET_MS): number {
  return Math.max(requestedMs, durationStep(horizonMs, MAX_BUCKETS));
}

export function rateStats(times: readonly number[], bucketMs: number): RateStats {
  const clearMs = times.reduce((latest, time) => Math.max(latest, time), 0);
  const counts = new Array<number>(Math.floor(clearMs / bucketMs) + 1).fill(0);
  for (const time of times) {
    const index = Math.floor(time / bucketMs);
    counts[index] = (counts[index] ?? 0) + 1;
  }
  let peakIndex = 0;
  counts.forEach((count, index) => {
    if (count > (counts[peakIndex] ?? 0)) peakIndex = index;
  });
  const perSecond = 1_000 / bucketMs;
  const peakPerSecond = (counts[peakIndex] ?? 0) * perSecond;
  // Over at least one bucket: a backlog that clears at once has the bucket's rate as its mean.
  const meanPerSecond = times.length === 0 ? 0 : (times.length * 1_000) / Math.max(clearMs, bucketMs);
  return {
    retries: times.length,
    bucketMs,
    counts: times.length === 0 ? [] : counts,
    peakPerSecond,
    peakAtMs: peakIndex * bucketMs,
    meanPerSecond,
    peakToMean: meanPerSecond === 0 ? 0 : peakPerSecond / meanPerSecond,
    clearMs,
  };
}
