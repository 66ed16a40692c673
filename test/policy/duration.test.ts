import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../policy';
import { toIso8601 } from '../../policy/duration';

describe('parseDuration', () => {
  it.each([
    ['200ms', 200],
    ['2s', 2_000],
    ['1.5s', 1_500],
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1m30s', 90_000],
    [' 2s ', 2_000],
  ])('reads %s as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'fast', '2', '2 s', '2sec', '-1s', '0.5ms', 's', '1s2', '1e3ms'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('reads back what formatDuration writes, for any whole number of milliseconds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 * 365 * 86_400_000 }), (ms) => {
        expect(parseDuration(formatDuration(ms))).toBe(ms);
      }),
    );
  });
});

describe('toIso8601', () => {
  it.each([
    [60_000, 'PT1M'],
    [300_000, 'PT5M'],
    [3_600_000, 'PT1H'],
    [14 * 86_400_000, 'P14D'],
    [90_500, 'PT1M31S'],
    [0, 'PT0S'],
    [86_400_000 + 1_000, 'P1DT1S'],
  ])('writes %d ms as %s', (ms, iso) => {
    expect(toIso8601(ms)).toBe(iso);
  });
});
