/**
 * Tick marks for a time axis in milliseconds that land on durations people read at a glance
 * (5s, 30s, 2m, 1h) rather than on decimal steps (a 10-minute axis in decimal steps would tick
 * at 1m40s, 3m20s, …).
 */

const STEPS_MS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000,
  600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/** The smallest readable step that puts at most about `count` ticks on [0, endMs]. */
export function durationStep(endMs: number, count: number): number {
  const rough = Math.max(1, endMs) / Math.max(1, count);
  return STEPS_MS.find((step) => step >= rough) ?? Math.ceil(rough / 86_400_000) * 86_400_000;
}

/** Ticks from 0 up to the first one at or beyond endMs, so the axis ends on a labelled tick. */
export function durationTicks(endMs: number, count: number): number[] {
  const step = durationStep(endMs, count);
  const out: number[] = [];
  for (let tick = 0; ; tick += step) {
    out.push(tick);
    if (tick >= endMs) break;
  }
  return out;
}
