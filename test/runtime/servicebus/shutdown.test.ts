import { describe, expect, it } from 'vitest';
import { httpError } from '../plan-fixture';
import { queueHarness, serviceBusPlan } from './harness';

describe('stopping the consumer', () => {
  const plan = serviceBusPlan({ immediate: { retries: 2, delay: '1s' } });

  it('abandons a message waiting for an immediate retry, so another consumer gets it at once', async () => {
    const harness = queueHarness(plan, async () => {
      throw httpError(503);
    });
    const { retry, receiver, clock, queue, send } = harness;
    const loop = retry.receiveLoop(receiver);
    await send([{ body: {}, messageId: 'msg-A' }]);
    await clock.advance(500);
    expect(harness.seen).toHaveLength(1);

    await retry.stop();
    await loop;
    expect(receiver.calls.map((call) => call.method)).toEqual(['abandonMessage']);
    expect(queue.abandons).toHaveLength(1);
    expect(queue.active.map((each) => [each.sent.messageId, each.deliveryCount])).toEqual([['msg-A', 1]]);
    // Not judged: no copy, no dead letter.
    expect(harness.sender.scheduled).toEqual([]);
    expect(queue.deadLetters).toEqual([]);
  });

  it('does not dead-letter a handler failure caused by the stop itself', async () => {
    const harness = queueHarness(plan, async (_, { signal }) => {
      await harness.clock.sleep(10_000, signal);
    });
    const { retry, receiver, clock, queue, send } = harness;
    retry.subscribe(receiver, { processError: async () => {} });
    await send([{ body: {}, messageId: 'msg-A' }]);
    await clock.advance(100);
    await retry.stop();
    expect(queue.deadLetters).toEqual([]);
    expect(queue.abandons).toHaveLength(1);
  });

  it('does not dead-letter a handler that rejects with an AbortError once stopped', async () => {
    const harness = queueHarness(
      serviceBusPlan({ classify: { unknown: 'transient' } } as never),
      (_, { signal }) =>
        new Promise<void>((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), {
            once: true,
          }),
        ),
    );
    const { retry, receiver, queue, send } = harness;
    retry.subscribe(receiver, { processError: async () => {} });
    await send([{ body: {}, messageId: 'msg-A' }]);
    await harness.clock.advance(100);
    await retry.stop();
    expect(queue.deadLetters).toEqual([]);
    expect(harness.sender.scheduled).toEqual([]);
    expect(queue.abandons).toHaveLength(1);
  });

  it('resolves at its deadline while a handler ignores the signal; the message stays locked', async () => {
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const harness = queueHarness(plan, () => blocked, { consumer: { stopTimeoutMs: 20 } });
    const { retry, receiver, queue, send } = harness;
    retry.subscribe(receiver, { processError: async () => {} });
    await send([{ body: {}, messageId: 'msg-A' }]);
    await harness.clock.advance(100);
    expect(harness.seen).toHaveLength(1);
    await retry.stop();
    expect(receiver.calls).toEqual([]);
    expect(queue.deadLetters).toEqual([]);
    release();
  });

  it('refuses a stopTimeoutMs that is not 0 or more milliseconds', () => {
    expect(() => queueHarness(plan, async () => {}, { consumer: { stopTimeoutMs: -5 } })).toThrow(
      expect.objectContaining({ code: 'invalid-option' }),
    );
  });

  it('hands back a message that arrives after the stop without calling the handler', async () => {
    const harness = queueHarness(plan, async () => {});
    await harness.send([{ body: {}, messageId: 'msg-A' }]);
    const [message] = await harness.receiver.receiveMessages(1);
    await harness.retry.stop();
    if (!message) throw new Error('no message');
    const outcome = await harness.retry.process(message, harness.receiver);
    expect(outcome).toMatchObject({ kind: 'abandoned', handlerCalls: 0 });
    expect(harness.seen).toEqual([]);
  });
});
