import type { Random } from '../../runtime';

/**
 * A seeded random source for simulations: mulberry32, a 32-bit generator that is tiny, fast and
 * well distributed enough for spreading waits (not for anything secret). The same seed gives the
 * same sequence on every machine, so `simulate --seed N` output can be compared and tested.
 */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
