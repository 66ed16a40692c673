import { describe, expect, it } from 'vitest';
import { noMetrics, runHandler, targetRules } from '../../../runtime';
import { FakeClock } from '../../support/fake-clock';
import { billingPlan, httpError } from '../plan-fixture';

/** The runHandler hook this adapter added (runtime/run-handler.ts), on its own. */
describe('runHandler beforeImmediate', () => {
  const rules = targetRules(billingPlan({ immediate: { retries: 2, delay: '100ms' } }), 'serviceBus');
  const failing = async () => {
    throw httpError(503);
  };

  it.each([
    ['false', () => false],
    [
      'a throw',
      () => {
        throw new Error('guard broke');
      },
    ],
  ])('on %s, skips the in-memory wait and returns the delayed level', async (_, hook) => {
    const clock = new FakeClock();
    const asked: number[] = [];
    const result = await runHandler(rules, {
      attempt: 1,
      call: failing,
      clock,
      random: () => 0.5,
      metrics: noMetrics,
      beforeImmediate: ({ delayMs }) => {
        asked.push(delayMs);
        return hook();
      },
    });
    expect(asked).toEqual([100]);
    expect(result.handlerCalls).toBe(1);
    expect(result.decision).toMatchObject({ kind: 'delayed', level: 1, nextAttempt: 2 });
  });

  it('on true, waits and calls again', async () => {
    const clock = new FakeClock();
    const run = runHandler(rules, {
      attempt: 1,
      call: failing,
      clock,
      random: () => 0.5,
      metrics: noMetrics,
      beforeImmediate: () => true,
    });
    await clock.advance(200);
    expect((await run).handlerCalls).toBe(3);
  });

  it('on false at the last attempt, dead-letters as exhausted', async () => {
    const result = await runHandler(rules, {
      attempt: 4,
      call: failing,
      clock: new FakeClock(),
      random: () => 0.5,
      metrics: noMetrics,
      beforeImmediate: () => false,
    });
    expect(result.decision).toMatchObject({ kind: 'dead-letter', reason: 'exhausted' });
  });
});
