import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPT_VALUE, readAttempt } from '../../runtime';

describe('readAttempt', () => {
  it.each([
    [undefined, { attempt: 1 }],
    [null, { attempt: 1 }],
    [3, { attempt: 3 }],
    ['3', { attempt: 3 }],
    [' 2 ', { attempt: 2 }],
    [Buffer.from('4'), { attempt: 4 }],
    [BigInt(5), { attempt: 5 }],
  ])('reads %s as %o', (raw, reading) => {
    expect(readAttempt(raw)).toEqual(reading);
  });

  it.each([
    ['text', 'three'],
    ['negative', -2],
    ['negative text', '-2'],
    ['zero', 0],
    ['a fraction', 2.5],
    ['huge', 10 ** 12],
    ['huge text', '99999999999999999999999'],
    ['NaN', Number.NaN],
    ['an object', { attempt: 2 }],
  ])('reads a malformed value (%s) as attempt 1 and keeps the raw text', (_name, raw) => {
    const reading = readAttempt(raw);
    expect(reading.attempt).toBe(1);
    expect(typeof reading.invalid).toBe('string');
  });

  it('never throws and always returns an attempt in range', () => {
    fc.assert(
      fc.property(fc.anything({ withBigInt: true, withTypedArray: true, withMap: true }), (raw) => {
        const { attempt } = readAttempt(raw);
        expect(Number.isInteger(attempt)).toBe(true);
        expect(attempt).toBeGreaterThanOrEqual(1);
        expect(attempt).toBeLessThanOrEqual(MAX_ATTEMPT_VALUE);
      }),
    );
  });
});
