import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ChainEntry, headOf, placeFromSource, placeInChain } from '../../../runtime/kafka';

const at = (topic: string, sequence: number | undefined, extra: Partial<ChainEntry> = {}): ChainEntry => ({
  topic,
  partition: 0,
  keyId: 'k',
  producedAt: 100,
  ...(sequence === undefined ? {} : { sequence }),
  ...extra,
});

describe('parking decisions', () => {
  it('handles a source record at once when its key has nothing in the chain', () => {
    expect(placeFromSource([], 1_000)).toEqual({ kind: 'handle' });
  });

  it('parks a source record behind the key’s oldest record, in that record’s topic, due when it is', () => {
    const head = at('p.retry.2', 4, { notBefore: 5_000 });
    const placement = placeFromSource([at('p.retry.1', 9, { notBefore: 9_000 }), head], 1_000);
    expect(placement).toEqual({ kind: 'park', topic: 'p.retry.2', notBefore: 5_000, head });
  });

  it('never parks with a due time in the past', () => {
    const placement = placeFromSource([at('p.retry.1', 4, { notBefore: 500 })], 1_000);
    expect(placement).toMatchObject({ kind: 'park', notBefore: 1_000 });
  });

  it('follows the head’s newest copy while it moves level to level', () => {
    const old = at('p.retry.1', 4, { producedAt: 100 });
    const moved = at('p.retry.2', 4, { producedAt: 200 });
    expect(headOf([old, moved])).toBe(moved);
    expect(headOf([moved, old])).toBe(moved);
  });

  it('ignores copies without a sequence (not produced by this runtime)', () => {
    expect(placeFromSource([at('p.retry.1', undefined)], 1_000)).toEqual({ kind: 'handle' });
  });

  it('handles a retry record that is the oldest of its key, parks one that is not', () => {
    const chain = [at('p.retry.1', 4), at('p.retry.1', 7), at('p.retry.3', 9)];
    expect(placeInChain(chain, 4, 1_000)).toEqual({ kind: 'handle' });
    expect(placeInChain(chain, 7, 1_000)).toMatchObject({
      kind: 'park',
      topic: 'p.retry.1',
      head: { sequence: 4 },
    });
    expect(placeInChain(chain, undefined, 1_000)).toEqual({ kind: 'handle' });
  });

  it('handles exactly the oldest record of a key, whatever the chain holds', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.nat(1_000), { minLength: 1, maxLength: 12 }),
        fc.nat(11),
        (sequences, pick) => {
          const chain = sequences.map((sequence) => at(`p.retry.${(sequence % 3) + 1}`, sequence));
          const mine = sequences[pick % sequences.length] as number;
          const placement = placeInChain(chain, mine, 1_000);
          expect(placement.kind === 'handle').toBe(mine === Math.min(...sequences));
          if (placement.kind === 'park') expect(placement.head.sequence).toBe(Math.min(...sequences));
        },
      ),
    );
  });
});
