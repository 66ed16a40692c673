import { describe, expect, it } from 'vitest';
import { createServiceBusRetry } from '../../../runtime/servicebus';
import { httpError } from '../plan-fixture';
import { queueHarness, serviceBusPlan } from './harness';

describe('a crash between scheduling the copy and completing the original', () => {
  it('gives a duplicate (the handler sees the message twice), never a loss', async () => {
    const plan = serviceBusPlan();
    let failures = 0;
    const harness = queueHarness(plan, async () => {
      // The dependency fails once, then recovers.
      if (failures++ === 0) throw httpError(503);
    });
    const { bus, clock, queue, receiver, retry, seen, secondsOf, sender } = harness;
    receiver.crashWhenCalling('completeMessage');
    retry.subscribe(receiver, { processError: async () => {} });
    await harness.send([{ body: { orderId: 'A' }, messageId: 'msg-A' }]);
    await clock.advance(0);
    // The copy was accepted before the process died.
    expect(sender.scheduled).toHaveLength(1);
    expect(queue.completed).toHaveLength(0);

    // The consumer restarts: a new process, a new receiver on the same queue.
    const restarted = bus.receiver('orders');
    createServiceBusRetry(plan, {
      sender: bus.sender('orders'),
      clock,
      random: () => 0.5,
      onError: () => {},
      handler: async (message, context) => {
        seen.push({
          id: message.messageId,
          attempt: context.attempt,
          deliveryCount: message.deliveryCount,
          at: clock.now(),
        });
      },
    }).subscribe(restarted, { processError: async () => {} });
    await clock.advance(120_000);

    // The copy at second 2 (attempt 2), and the original again once its lock expired at second
    // 60, as attempt 1 with one more delivery counted.
    expect(seen.map((each) => [each.id, secondsOf(each.at), each.attempt, each.deliveryCount])).toEqual([
      ['msg-A', 0, 1, 0],
      ['msg-A', 2, 2, 0],
      ['msg-A', 60, 1, 1],
    ]);
    expect(queue.lockLosses).toHaveLength(1);
    expect(queue.completed).toHaveLength(2);
    expect(queue.deadLetters).toEqual([]);
    expect(queue.active).toEqual([]);
  });
});
