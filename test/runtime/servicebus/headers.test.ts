import { describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { httpError } from '../plan-fixture';
import { queueHarness, serviceBusPlan } from './harness';

/**
 * What the application put on a message survives every hop: the three scheduled copies and the
 * dead letter (on the typed fake of @azure/service-bus; nothing here ran on a real namespace).
 */
const application = {
  'x-request-id': 'req-7',
  'x-correlation-id': 'corr-7',
  'x-tenant': 'acme',
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
  'Diagnostic-Id': '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  tenant: 'acme',
  priority: 3,
  urgent: true,
};

async function alwaysFailing(applicationProperties: Record<string, string | number | boolean>) {
  const harness = queueHarness(serviceBusPlan(), async () => {
    throw httpError(503);
  });
  harness.retry.subscribe(harness.receiver, { processError: async () => {} });
  await harness.send([
    { body: { orderId: 'A' }, messageId: 'msg-A', correlationId: 'c-A', applicationProperties },
  ]);
  await harness.clock.advance(30_000);
  await harness.retry.stop();
  return harness;
}

describe('application properties on Service Bus', () => {
  it('are kept on every scheduled copy and on the dead letter', async () => {
    const { sender, queue, seen } = await alwaysFailing(application);
    expect(seen.map((each) => each.attempt)).toEqual([1, 2, 3, 4]);
    expect(sender.scheduled).toHaveLength(3);
    for (const { message } of sender.scheduled) {
      expect(message.applicationProperties).toMatchObject(application);
      expect(message).toMatchObject({ messageId: 'msg-A', correlationId: 'c-A' });
    }
    expect(queue.deadLetters).toHaveLength(1);
    expect(queue.deadLetters[0]?.applicationProperties).toMatchObject({
      ...application,
      [HEADERS.reason]: 'exhausted',
      [HEADERS.attempt]: 4,
    });
  });

  it('a malformed attempt is carried on every copy and ends in the dead letter', async () => {
    const { sender, queue, seen } = await alwaysFailing({ [HEADERS.attempt]: 'abc' });
    expect(seen.map((each) => each.attempt)).toEqual([1, 2, 3, 4]);
    expect(
      sender.scheduled.map(({ message }) => message.applicationProperties?.[HEADERS.attemptInvalid]),
    ).toEqual(['abc', 'abc', 'abc']);
    expect(queue.deadLetters[0]?.applicationProperties).toMatchObject({
      [HEADERS.attempt]: 4,
      [HEADERS.attemptInvalid]: 'abc',
      [HEADERS.reason]: 'exhausted',
    });
  });
});
