import { describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import { FakeClock, flush } from '../../support/fake-clock';
import { billingPlan, httpError } from '../plan-fixture';
import { delivery, recordingChannel } from './recording-channel';

const plan = billingPlan({
  targets: {
    rabbitmq: { exchange: 'bookstore.ordering', routingKey: 'order.placed', brokerVersion: '3.10.8' },
  },
} as never);
const levels = plan.targets.rabbitmq?.levels ?? [];
const longestWaitMs = Math.max(...levels.map((level) => level.waitMs.max));

/** A clock whose timers longer than 1 ms end a millisecond early, as Node's may by the wall clock. */
class EarlyClock extends FakeClock {
  override sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return super.sleep(ms > 1 ? ms - 1 : ms, signal);
  }
}

/** A consumer whose handler records when it ran and then does what `outcome` says. */
async function consumer(outcome: () => Promise<void> = async () => {}, clock = new FakeClock()) {
  const { channel, calls, deliver } = recordingChannel();
  const ranAt: number[] = [];
  const running = await consumeWithRetries(
    channel,
    plan,
    async () => {
      ranAt.push(clock.now());
      await outcome();
    },
    { clock, random: () => 0.5 },
  );
  return { clock, calls, deliver, ranAt, running };
}

describe('a retry copy the broker lets out before its retry-not-before', () => {
  it('is held, unacked, until then; the handler runs at its due time, not before', async () => {
    const { clock, calls, deliver, ranAt } = await consumer();
    const dueAt = clock.now() + 1_500;
    deliver(delivery({ [HEADERS.attempt]: 2, [HEADERS.notBefore]: dueAt }));
    await clock.advance(1_499);
    expect(ranAt).toEqual([]);
    expect(calls).toEqual([]);
    await clock.advance(1);
    expect(ranAt).toEqual([dueAt]);
    await flush();
    expect(calls).toEqual([{ call: 'ack', tag: 1 }]);
  });

  it('is held until its due time even when a timer ends a millisecond early', async () => {
    const { clock, deliver, ranAt } = await consumer(undefined, new EarlyClock());
    const dueAt = clock.now() + 1_500;
    deliver(delivery({ [HEADERS.attempt]: 2, [HEADERS.notBefore]: dueAt }));
    await clock.advance(1_499);
    expect(ranAt).toEqual([]);
    await clock.advance(1);
    expect(ranAt).toEqual([dueAt]);
  });

  it('holds no longer than the plan’s longest wait, whatever the value says', async () => {
    const { clock, deliver, ranAt } = await consumer();
    const start = clock.now();
    deliver(delivery({ [HEADERS.attempt]: 2, [HEADERS.notBefore]: start + 86_400_000 }));
    await clock.advance(longestWaitMs - 1);
    expect(ranAt).toEqual([]);
    await clock.advance(1);
    expect(ranAt).toEqual([start + longestWaitMs]);
  });

  it.each([
    ['in the past', (now: number) => now - 1],
    ['as text', (now: number) => String(now - 1)],
    ['malformed text', () => 'soon'],
    ['negative', () => -5],
    ['a fraction', (now: number) => now + 0.5],
    ['an object', () => ({ at: 1 })],
  ])('runs at once when the value is %s', async (_name, value) => {
    const { clock, deliver, ranAt } = await consumer();
    deliver(delivery({ [HEADERS.attempt]: 2, [HEADERS.notBefore]: value(clock.now()) }));
    await flush();
    expect(ranAt).toEqual([clock.now()]);
  });

  it('reads a due time written as text', async () => {
    const { clock, deliver, ranAt } = await consumer();
    deliver(delivery({ [HEADERS.attempt]: 2, [HEADERS.notBefore]: ` ${clock.now() + 300} ` }));
    await clock.advance(299);
    expect(ranAt).toEqual([]);
    await clock.advance(1);
    expect(ranAt).toHaveLength(1);
  });

  it('goes back to its queue when the consumer stops while it is held', async () => {
    const { clock, calls, deliver, ranAt, running } = await consumer();
    deliver(delivery({ [HEADERS.attempt]: 2, [HEADERS.notBefore]: clock.now() + 1_000 }));
    await clock.advance(10);
    await running.stop();
    await flush();
    expect(ranAt).toEqual([]);
    expect(calls).toEqual([{ call: 'nack', tag: 1, requeue: true }]);
    expect(clock.pending).toBe(0);
  });
});

describe('retry-not-before on the copies', () => {
  it('is the wait queue’s TTL from now on a retry copy, and left out of the dead letter', async () => {
    const { clock, calls, deliver } = await consumer(async () => {
      throw httpError(503);
    });
    const now = clock.now();
    deliver(delivery({}, 1));
    await flush();
    await flush();
    const retryCopy = calls.find((call) => call.call === 'publish');
    expect(retryCopy?.options?.headers?.[HEADERS.notBefore]).toBe(
      now + (levels[0]?.waitMs.min ?? Number.NaN),
    );

    // The last attempt, delivered with the header of the copy before it: dead-lettered without it.
    deliver(
      delivery({ [HEADERS.attempt]: plan.targets.rabbitmq?.maxAttempts, [HEADERS.notBefore]: now - 1 }, 2),
    );
    await flush();
    await flush();
    const deadLetter = calls.filter((call) => call.call === 'publish')[1];
    expect(deadLetter?.options?.headers?.[HEADERS.reason]).toBe('exhausted');
    expect(deadLetter?.options?.headers).not.toHaveProperty(HEADERS.notBefore);
  });
});
