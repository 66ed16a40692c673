import { describe, expect, it } from 'vitest';
import { type ChainEntry, ChainIndex } from '../../../runtime/kafka';

const L1 = 'p.retry.1';
const L2 = 'p.retry.2';
const entry = (
  topic: string,
  offset: number,
  keyId: string,
  sequence: number,
): ChainEntry & { offset: number } => ({
  topic,
  partition: 0,
  offset,
  keyId,
  sequence,
  producedAt: 1_000 + offset,
});

describe('ChainIndex', () => {
  it('keeps copies per partition and key, once each', () => {
    const index = new ChainIndex();
    index.add(entry(L1, 0, 'k', 5));
    index.add(entry(L1, 0, 'k', 5));
    index.add(entry(L2, 0, 'k', 9));
    index.add(entry(L1, 1, 'other', 6));
    expect(
      index
        .chainOf(0, 'k')
        .map((e) => e.sequence)
        .sort(),
    ).toEqual([5, 9]);
    expect(index.chainOf(1, 'k')).toEqual([]);
    expect(index.size).toBe(3);
  });

  it('drops copies below the committed offset: they have left the chain', () => {
    const index = new ChainIndex();
    index.add(entry(L1, 0, 'k', 5));
    index.add(entry(L1, 1, 'k', 6));
    index.setFloor(L1, 0, 1);
    expect(index.chainOf(0, 'k').map((e) => e.sequence)).toEqual([6]);
    // A copy read again after the floor moved does not come back.
    index.add(entry(L1, 0, 'k', 5));
    expect(index.chainOf(0, 'k').map((e) => e.sequence)).toEqual([6]);
  });

  it('knows which offsets it has read, across gaps that are filled later', () => {
    const index = new ChainIndex();
    expect(index.covered(L1, 0, 3, 3)).toBe(true);
    index.cover(L1, 0, 5);
    index.cover(L1, 0, 6);
    expect(index.covered(L1, 0, 3, 7)).toBe(false);
    for (const offset of [3, 4]) index.cover(L1, 0, offset);
    expect(index.covered(L1, 0, 3, 7)).toBe(true);
    expect(index.covered(L1, 0, 3, 8)).toBe(false);
    index.setFloor(L1, 0, 6);
    expect(index.covered(L1, 0, 6, 7)).toBe(true);
  });

  it('counts a copy produced here until a snapshot that began after it completes', () => {
    const index = new ChainIndex();
    index.addLocal({ topic: L1, partition: 0, keyId: 'k', sequence: 3, producedAt: 1 }, 4);
    index.settleLocal(3);
    expect(index.chainOf(0, 'k')).toHaveLength(1);
    index.settleLocal(4);
    expect(index.chainOf(0, 'k')).toEqual([]);
  });
});
