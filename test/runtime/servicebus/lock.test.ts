import { ServiceBusError } from '@azure/service-bus';
import { describe, expect, it } from 'vitest';
import { httpError } from '../plan-fixture';
import { queueHarness, serviceBusPlan } from './harness';

/**
 * A 10 s lock, immediate retries of 2 x 2 s (within half the lock, so validation accepts it), and
 * a handler that takes 3 s and always fails: two more calls do not fit in one lock.
 */
const LOCK_MS = 10_000;

/** The tests use a 1 s settle margin unless they say `'default'`. */
function slowFailing(lockRenewal: string, settleMarginMs: number | 'default' = 1_000) {
  const plan = serviceBusPlan(
    { immediate: { retries: 2, delay: '2s' } },
    { lockDuration: '10s', lockRenewal },
  );
  const harness = queueHarness(
    plan,
    async () => {
      await harness.clock.sleep(3_000);
      throw httpError(503);
    },
    {
      queue: { lockDurationMs: LOCK_MS },
      consumer: settleMarginMs === 'default' ? {} : { settleMarginMs },
    },
  );
  return harness;
}

async function firstDelivery(harness: ReturnType<typeof slowFailing>) {
  await harness.send([{ body: {}, messageId: 'msg-A' }]);
  const [message] = await harness.receiver.receiveMessages(1);
  if (!message) throw new Error('no message');
  const outcome = harness.retry.process(message, harness.receiver);
  await harness.clock.advance(30_000);
  return outcome;
}

describe('immediate retries and the lock', () => {
  it('stops immediate retries and schedules the copy while the lock holds, when renewal is off', async () => {
    const harness = slowFailing('0s');
    const outcome = await firstDelivery(harness);
    // Call 1 ends at 3 s; a 2 s wait and another 3 s call fit (8 s + 1 s margin < 10 s); a third
    // would end at 13 s. So: two calls, then the delayed level, settled at 8 s.
    expect(outcome).toMatchObject({ kind: 'scheduled', attempt: 1, handlerCalls: 2, nextAttempt: 2 });
    expect(harness.receiver.calls.map((call) => [call.method, harness.secondsOf(call.at)])).toEqual([
      ['completeMessage', 8],
    ]);
    expect(harness.queue.lockLosses).toEqual([]);
    expect(harness.queue.renewals).toEqual([]);
  });

  it('renews the lock itself within the declared renewal, and makes every immediate retry', async () => {
    const harness = slowFailing('1m');
    const outcome = await firstDelivery(harness);
    expect(outcome).toMatchObject({ kind: 'scheduled', handlerCalls: 3 });
    expect(harness.queue.renewals.length).toBeGreaterThan(0);
    expect(harness.queue.lockLosses).toEqual([]);
    // Settled at 13 s: past the first lock, inside the renewed one.
    expect(harness.receiver.calls.at(-1)).toMatchObject({ method: 'completeMessage' });
    expect(harness.secondsOf(harness.receiver.calls.at(-1)?.at ?? 0)).toBe(13);
  });

  it('never renews past the declared renewal', async () => {
    // Renewal up to 12 s: the wait before call 3 would need the lock until 14 s.
    const harness = slowFailing('12s');
    const outcome = await firstDelivery(harness);
    expect(outcome).toMatchObject({ kind: 'scheduled', handlerCalls: 2 });
    expect(harness.queue.renewals).toEqual([]);
    expect(harness.queue.lockLosses).toEqual([]);
  });

  it('takes the delayed path when renewing fails, and reports it', async () => {
    const harness = slowFailing('1m');
    harness.receiver.failNext('renewMessageLock', new ServiceBusError('link detached', 'ServiceBusy'));
    const outcome = await firstDelivery(harness);
    expect(outcome).toMatchObject({ kind: 'scheduled', handlerCalls: 2 });
    expect(harness.errors.map((error) => error.code)).toEqual(['lock-renewal-failed']);
    expect(harness.errors[0]?.messageId).toBe('msg-A');
    expect(harness.queue.lockLosses).toEqual([]);
  });

  it('keeps the default settle margin of 5 s', async () => {
    // 3 s + 2 s wait + 3 s call + 5 s margin > 10 s: not even one immediate retry fits.
    const harness = slowFailing('0s', 'default');
    const outcome = await firstDelivery(harness);
    expect(outcome).toMatchObject({ kind: 'scheduled', handlerCalls: 1 });
    expect(harness.queue.lockLosses).toEqual([]);
  });
});
