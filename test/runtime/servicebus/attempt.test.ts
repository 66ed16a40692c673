import { describe, expect, it } from 'vitest';
import { HEADERS, PermanentError } from '../../../runtime';
import { httpError } from '../plan-fixture';
import { queueHarness, serviceBusPlan } from './harness';

/**
 * A malformed attempt property has one defined outcome (runtime/attempt.ts): the delivery counts
 * as attempt 1, the raw value is kept for the dead letter, and every copy carries a valid attempt.
 */
const malformed: Array<[string, string | number | boolean]> = [
  ['a text', 'three'],
  ['a negative', -1],
  ['a zero', 0],
  ['a fractional', 1.5],
  ['a huge', 5_000_000],
  ['an exponent-notation', '1e3'],
  ['a boolean', true],
];

async function deliver(value: string | number | boolean, failure: Error) {
  const harness = queueHarness(serviceBusPlan(), async () => {
    throw failure;
  });
  harness.retry.subscribe(harness.receiver, { processError: async () => {} });
  await harness.send([{ body: {}, messageId: 'msg-A', applicationProperties: { 'retry-attempt': value } }]);
  await harness.clock.advance(0);
  return harness;
}

describe.each(malformed)('%s attempt property (%s)', (_, value) => {
  it('is handled as attempt 1, and its transient failure schedules attempt 2', async () => {
    const { seen, sender } = await deliver(value, httpError(503));
    expect(seen[0]?.attempt).toBe(1);
    expect(sender.scheduled[0]?.message.applicationProperties?.['retry-attempt']).toBe(2);
  });

  it('is kept on the dead letter', async () => {
    const { queue } = await deliver(value, new PermanentError('bad order'));
    expect(queue.deadLetters[0]?.applicationProperties).toMatchObject({
      [HEADERS.attempt]: 1,
      [HEADERS.attemptInvalid]: String(value),
    });
  });
});

describe('a valid attempt beyond maxAttempts', () => {
  it('is dead-lettered as exhausted on its first failure, with no copy', async () => {
    const { queue, sender, seen } = await deliver(99, httpError(503));
    expect(seen[0]?.attempt).toBe(99);
    expect(sender.scheduled).toEqual([]);
    expect(queue.deadLetters[0]?.deadLetterReason).toBe('exhausted');
  });
});
