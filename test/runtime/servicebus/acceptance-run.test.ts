import { describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { httpError, InvalidCurrencyError } from '../plan-fixture';
import { countsBy, queueHarness, serviceBusPlan } from './harness';

/**
 * The billing acceptance run on Service Bus: A gets a 503 on its first two attempts, B has an invalid
 * currency, the provider never recovers for C. Waits of 2 s, 4 s and 8 s, no jitter, fake time.
 */
const order = (id: string) => ({
  body: { orderId: id, currency: id === 'B' ? 'XXX' : 'EUR' },
  messageId: `msg-${id}`,
  correlationId: `corr-${id}`,
  subject: 'order.placed',
  contentType: 'application/json',
  applicationProperties: { tenant: 'bookstore' },
});

describe.each(['subscribe', 'receiveLoop'] as const)('the acceptance run (%s)', (mode) => {
  async function run() {
    const harness = queueHarness(serviceBusPlan(), async (message, { attempt }) => {
      const { orderId } = message.body as { orderId: string };
      if (orderId === 'B') throw new InvalidCurrencyError('Unsupported currency XXX');
      if (orderId === 'C' || attempt < 3) throw httpError(503);
    });
    const { retry, receiver, clock } = harness;
    let loop: Promise<void> | undefined;
    if (mode === 'subscribe')
      retry.subscribe(receiver, { processError: async () => {} }, { maxConcurrentCalls: 3 });
    else loop = retry.receiveLoop(receiver);
    await harness.send([order('A'), order('B'), order('C')]);
    await clock.advance(30_000);
    await retry.stop();
    await loop;
    return harness;
  }

  it('A succeeds on attempt 3 after waits of 2 s and 4 s', async () => {
    const { seen, queue, secondsOf } = await run();
    const a = seen.filter((each) => each.id === 'msg-A');
    expect(a.map((each) => [secondsOf(each.at), each.attempt])).toEqual([
      [0, 1],
      [2, 2],
      [6, 3],
    ]);
    // The SDK's deliveryCount restarts on every scheduled copy: why the attempt is our own property.
    expect(a.map((each) => each.deliveryCount)).toEqual([0, 0, 0]);
    expect(queue.completed.filter((each) => each.sent.messageId === 'msg-A')).toHaveLength(3);
  });

  it('B is dead-lettered at once, with its reason and description', async () => {
    const { seen, queue, sender } = await run();
    expect(seen.filter((each) => each.id === 'msg-B').map((each) => each.attempt)).toEqual([1]);
    expect(sender.scheduled.filter((each) => each.message.messageId === 'msg-B')).toEqual([]);
    const b = queue.deadLetters.find((each) => each.messageId === 'msg-B');
    expect(b).toMatchObject({
      deadLetterReason: 'permanent',
      deadLetterErrorDescription: 'attempt 1 of 4: InvalidCurrencyError: Unsupported currency XXX',
      applicationProperties: {
        tenant: 'bookstore',
        [HEADERS.reason]: 'permanent',
        [HEADERS.errorName]: 'InvalidCurrencyError',
        [HEADERS.attempt]: 1,
        [HEADERS.source]: 'orders',
      },
    });
  });

  it('C is dead-lettered when its attempts run out, after waits of 2, 4 and 8 s', async () => {
    const { seen, queue, secondsOf, clock } = await run();
    const c = seen.filter((each) => each.id === 'msg-C');
    expect(c.map((each) => [secondsOf(each.at), each.attempt])).toEqual([
      [0, 1],
      [2, 2],
      [6, 3],
      [14, 4],
    ]);
    const dead = queue.deadLetters.find((each) => each.messageId === 'msg-C');
    expect(dead).toMatchObject({
      deadLetterReason: 'exhausted',
      deadLetterErrorDescription: 'attempt 4 of 4: HttpRequestError: HTTP 503',
      applicationProperties: { [HEADERS.reason]: 'exhausted', [HEADERS.attempt]: 4 },
    });
    // Carried from the first failure, at second 0, through every copy.
    expect(dead?.applicationProperties[HEADERS.firstFailureAt]).toBe(clock.now() - 30_000);
    expect(queue.deadLetters).toHaveLength(2);
    expect(queue.active).toEqual([]);
    expect(queue.lockedCount).toBe(0);
  });

  it('schedules copies that keep what the producer set and advance the attempt', async () => {
    const { sender, secondsOf } = await run();
    const copies = sender.scheduled.filter((each) => each.message.messageId === 'msg-C');
    expect(
      copies.map((each) => [
        secondsOf(each.at.getTime()),
        each.message.applicationProperties?.['retry-attempt'],
      ]),
    ).toEqual([
      [2, 2],
      [6, 3],
      [14, 4],
    ]);
    expect(copies[0]?.message).toMatchObject({
      body: { orderId: 'C', currency: 'EUR' },
      messageId: 'msg-C',
      correlationId: 'corr-C',
      subject: 'order.placed',
      contentType: 'application/json',
      applicationProperties: { tenant: 'bookstore' },
    });
    // Nothing the broker stamps travels on the copy.
    expect(Object.keys(copies[0]?.message ?? {}).sort()).toEqual(
      ['applicationProperties', 'body', 'contentType', 'correlationId', 'messageId', 'subject'].sort(),
    );
  });

  it('records attempts by outcome, delayed retries by level and dead letters by reason', async () => {
    const { records } = await run();
    expect(countsBy(records, 'retry_topology.attempts', 'outcome')).toEqual({
      success: 1,
      retry: 5,
      'dead-letter': 2,
    });
    expect(countsBy(records, 'retry_topology.retries_scheduled', 'level')).toEqual({ 1: 2, 2: 2, 3: 1 });
    expect(countsBy(records, 'retry_topology.dead_letters', 'reason')).toEqual({
      permanent: 1,
      exhausted: 1,
    });
    expect(records.filter((each) => each.name === 'retry_topology.handler.duration')).toHaveLength(8);
  });
});
