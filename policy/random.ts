/**
 * A seeded random source: mulberry32, a 32-bit generator that is tiny, fast and well distributed
 * enough for spreading waits and generating test inputs (not for anything secret). The same seed
 * gives the same sequence on every machine, so `simulate --seed N` output, benchmark inputs and
 * test runs can be repeated and compared. The seed is read as an unsigned 32-bit integer.
 *
 * It lives here, beside the policy, so the runtime, the CLI, the tests and the benchmarks share one
 * copy. The result fits the runtime's `Random` type.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
