import { describe, expect, it } from 'vitest';
import { httpError } from '../plan-fixture';
import { queueHarness, serviceBusPlan } from './harness';

describe('a schedule the broker refuses', () => {
  /** The handler fails `failures` times with a 503, then succeeds. */
  async function refusedAfterFailing(failures: number) {
    let calls = 0;
    const harness = queueHarness(serviceBusPlan(), async () => {
      if (calls++ < failures) throw httpError(503);
    });
    // subscribe() as users wire it: the fake, like the SDK, would auto-complete an unsettled message.
    harness.retry.subscribe(harness.receiver, { processError: async () => {} });
    harness.sender.refuse();
    await harness.send([{ body: { orderId: 'A' }, messageId: 'msg-A' }]);
    await harness.clock.advance(0);
    return harness;
  }

  it('keeps the message: neither completed nor abandoned, and reported', async () => {
    const { queue, receiver, errors, sender } = await refusedAfterFailing(1);
    expect(sender.scheduled).toEqual([]);
    expect(receiver.calls).toEqual([]);
    expect(queue.completed).toEqual([]);
    expect(queue.lockedCount).toBe(1);
    expect(errors.map((error) => [error.code, error.messageId])).toEqual([['schedule-refused', 'msg-A']]);
    expect((errors[0]?.cause as { code?: string } | undefined)?.code).toBe('QuotaExceeded');
  });

  it('gets it back when the lock expires, and retries it once the broker accepts again', async () => {
    const harness = await refusedAfterFailing(2);
    const { clock, sender, queue, seen, secondsOf, records } = harness;
    sender.accept();
    await clock.advance(120_000);
    // Second 60: the lock expired, the same attempt again (one more delivery counted); the copy
    // is accepted this time, and attempt 2 succeeds two seconds later.
    expect(seen.map((each) => [secondsOf(each.at), each.attempt, each.deliveryCount])).toEqual([
      [0, 1, 0],
      [60, 1, 1],
      [62, 2, 0],
    ]);
    expect(queue.lockLosses).toHaveLength(1);
    expect(queue.completed).toHaveLength(2);
    expect(queue.deadLetters).toEqual([]);
    expect(
      records.filter((r) => r.name === 'retry_topology.attempts').map((r) => r.attributes?.outcome),
    ).toEqual(['requeued', 'retry', 'success']);
  });

  it('ends in the dead-letter subqueue through MaxDeliveryCount if the broker keeps refusing, never lost', async () => {
    const harness = await refusedAfterFailing(Number.POSITIVE_INFINITY);
    await harness.clock.advance(10 * 60_000);
    expect(harness.seen).toHaveLength(5);
    expect(harness.queue.completed).toEqual([]);
    expect(harness.queue.deadLetters).toMatchObject([
      { messageId: 'msg-A', deadLetterReason: 'MaxDeliveryCountExceeded', deliveryCount: 5 },
    ]);
  });
});
