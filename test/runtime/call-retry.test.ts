import { describe, expect, it } from 'vitest';
import { AttemptTimeoutError, callWithRetry } from '../../runtime';
import { FakeClock } from '../support/fake-clock';
import { httpError } from './plan-fixture';

/** A call that fails with the given errors in turn, then succeeds; it records when it ran. */
function scripted(clock: FakeClock, failures: unknown[]) {
  const calls: number[] = [];
  const call = async () => {
    calls.push(clock.now());
    const failure = failures[calls.length - 1];
    if (failure !== undefined) throw failure;
    return 'ok';
  };
  return { call, calls };
}

const base = { maxAttempts: 3, backoff: { initialMs: 200 }, jitter: 'none' as const, idempotent: true };

describe('callWithRetry', () => {
  it('retries transient failures with exponential waits from 200 ms', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const { call, calls } = scripted(clock, [httpError(503), httpError(503)]);
    const result = callWithRetry(call, { ...base, clock });
    await clock.advance(1_000);
    await expect(result).resolves.toBe('ok');
    expect(calls.map((at) => at - start)).toEqual([0, 200, 600]);
  });

  it('never retries a request that is not idempotent', async () => {
    const clock = new FakeClock();
    const { call, calls } = scripted(clock, [httpError(503)]);
    await expect(callWithRetry(call, { ...base, idempotent: false, clock })).rejects.toMatchObject({
      status: 503,
    });
    expect(calls).toHaveLength(1);
  });

  it('does not retry a permanent failure, and throws it unchanged', async () => {
    const clock = new FakeClock();
    const error = httpError(400);
    const { call, calls } = scripted(clock, [error]);
    await expect(callWithRetry(call, { ...base, clock })).rejects.toBe(error);
    expect(calls).toHaveLength(1);
  });

  it('gives up after maxAttempts with the last error', async () => {
    const clock = new FakeClock();
    const last = httpError(502);
    const { call, calls } = scripted(clock, [httpError(503), httpError(503), last]);
    const result = callWithRetry(call, { ...base, clock });
    result.catch(() => {});
    await clock.advance(5_000);
    await expect(result).rejects.toBe(last);
    expect(calls).toHaveLength(3);
  });

  it('honours Retry-After', async () => {
    const clock = new FakeClock();
    const start = clock.now();
    const { call, calls } = scripted(clock, [httpError(429, { 'retry-after': '1' })]);
    const result = callWithRetry(call, {
      ...base,
      backoff: { initialMs: 200, maxMs: 5_000 },
      jitter: 'full',
      random: () => 0,
      clock,
    });
    await clock.advance(2_000);
    await result;
    // Full jitter drew 0 ms, but the server asked for a second: within the level's 0–200 ms
    // bound, the wait is the bound.
    expect(calls.map((at) => at - start)).toEqual([0, 200]);
  });

  it('times out one attempt, counts the timeout as transient, and passes an aborted signal', async () => {
    const clock = new FakeClock();
    const signals: AbortSignal[] = [];
    let calls = 0;
    const result = callWithRetry(
      ({ signal }) => {
        signals.push(signal);
        calls++;
        return calls === 1 ? new Promise<string>(() => {}) : Promise.resolve('second');
      },
      { ...base, attemptTimeoutMs: 2_000, clock },
    );
    await clock.advance(2_000);
    await clock.advance(200);
    await expect(result).resolves.toBe('second');
    expect(signals[0]?.aborted).toBe(true);
    expect(signals[0]?.reason).toBeInstanceOf(AttemptTimeoutError);
  });

  it('starts no retry that would end past the total budget', async () => {
    const clock = new FakeClock();
    const { call, calls } = scripted(clock, [httpError(503), httpError(503), httpError(503)]);
    const result = callWithRetry(call, {
      ...base,
      maxAttempts: 5,
      backoff: { initialMs: 400 },
      totalBudgetMs: 1_000,
      clock,
    });
    result.catch(() => {});
    await clock.advance(10_000);
    await expect(result).rejects.toMatchObject({ status: 503 });
    // 0 ms, then 400 ms; the next wait (800 ms) would end at 1 200 ms, past the budget.
    expect(calls).toHaveLength(2);
  });
});
