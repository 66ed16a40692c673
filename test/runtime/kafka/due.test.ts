import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dueAt } from '../../../runtime/kafka/due';

const level = { min: 1_000, max: 2_000 };
const produced = 1_700_000_000_000;

describe('dueAt', () => {
  it('is the copy’s retry-not-before when it is within its level', () => {
    expect(dueAt(String(produced + 1_500), String(produced), level)).toEqual({ dueAt: produced + 1_500 });
  });

  it('cuts a due time later than the level allows back to timestamp + the longest wait', () => {
    expect(dueAt(String(produced + 86_400_000), String(produced), level)).toEqual({
      dueAt: produced + 2_000,
      clamped: true,
    });
  });

  it('gives a missing value the level’s shortest wait after the record’s timestamp', () => {
    expect(dueAt(undefined, String(produced), level)).toEqual({ dueAt: produced + 1_000 });
  });

  it.each(['soon', '', '-5', '1.5', '0', '99999999999999999999'])(
    'gives a malformed value (%j) the same outcome, and keeps the raw text',
    (raw) => {
      expect(dueAt(raw, String(produced), level)).toEqual({ dueAt: produced + 1_000, invalid: raw });
    },
  );

  it('is due at once when neither the header nor the timestamp can be read', () => {
    expect(dueAt('soon', '-1', level).dueAt).toBe(0);
  });

  it('is never later than timestamp + the level maximum, whatever the header says', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 2 ** 52 }), (raw, at) => {
        expect(dueAt(raw, String(at), level).dueAt).toBeLessThanOrEqual(at + level.max);
      }),
    );
  });
});
