import { describe, expect, it } from 'vitest';
import { KeyIndex, type Placing, place } from '../../../runtime/kafka/chain-keys';

const NOW = 10_000;
const R1 = 'orders.retry.1';
const R2 = 'orders.retry.2';

function source(sequence: number, keyId = 'k', timestamp = 1_000): Placing {
  return { keyId, sequence, fromSource: true, topic: 'orders', timestamp, now: NOW };
}
function copy(sequence: number, topic: string, timestamp: number, keyId = 'k'): Placing {
  return { keyId, sequence, fromSource: false, topic, timestamp, now: NOW };
}

describe('KeyIndex', () => {
  it('keeps the newest copy of a record, and the head is the smallest sequence', () => {
    const index = new KeyIndex();
    index.put('k', { sequence: 7, topic: R1, producedAt: 2_000, notBefore: 5_000 });
    index.put('k', { sequence: 3, topic: R2, producedAt: 3_000, notBefore: 9_000 });
    index.put('k', { sequence: 7, topic: R2, producedAt: 4_000 });
    index.put('k', { sequence: 7, topic: R1, producedAt: 1_500 });
    expect(index.get('k', 7)?.topic).toBe(R2);
    expect(index.head('k')?.sequence).toBe(3);
    expect(index.head('k', 3)).toBeUndefined();
    expect(index.head('other')).toBeUndefined();
    index.remove('k', 3);
    expect(index.head('k')?.sequence).toBe(7);
    index.remove('k', 7);
    expect(index.size).toBe(0);
  });

  it('knows nothing of a key only while no record of it waits and no scanned record finished', () => {
    const index = new KeyIndex();
    expect(index.unknown('k')).toBe(true);
    index.put('k', { sequence: 1, topic: R1, producedAt: 1_000 });
    expect([index.unknown('k'), index.unknown('other')]).toEqual([false, true]);
    index.remove('k', 1);
    expect(index.unknown('k')).toBe(true);
    // A scanned record that finished is remembered: its older copies are left behind, whatever the key.
    index.put('k', { sequence: 2, topic: R1, producedAt: 1_000, scanned: true });
    index.remove('k', 2);
    expect([index.unknown('k'), index.unknown('other')]).toEqual([false, false]);
  });
});

describe('place: one key in order across the chain', () => {
  it('runs a record whose key has nothing older in the chain; null keys and unknown origins always run', () => {
    const index = new KeyIndex();
    index.put('k', { sequence: 9, topic: R1, producedAt: 2_000 });
    expect(place(index, source(5))).toEqual({ kind: 'run' });
    expect(place(index, source(12, 'other'))).toEqual({ kind: 'run' });
    expect(place(index, { ...source(12), keyId: undefined })).toEqual({ kind: 'run' });
    expect(place(index, { ...copy(12, R1, 3_000), sequence: undefined })).toEqual({ kind: 'run' });
  });

  it('parks a newer source record behind the head, in its topic, due when the head is', () => {
    const index = new KeyIndex();
    index.put('k', { sequence: 4, topic: R2, producedAt: 2_000, notBefore: 60_000 });
    index.put('k', { sequence: 9, topic: R1, producedAt: 2_500, notBefore: 70_000 });
    const placed = place(index, source(12));
    expect(placed).toMatchObject({ kind: 'park', topic: R2, notBefore: 60_000 });
    // A head already due: the parked copy is due now.
    index.put('k', { sequence: 4, topic: R2, producedAt: 2_600, notBefore: 1 });
    expect(place(index, source(12))).toMatchObject({ kind: 'park', notBefore: NOW });
  });

  it('runs the copy that is the head, and parks a later one read before it', () => {
    const index = new KeyIndex();
    index.put('k', { sequence: 4, topic: R1, producedAt: 2_000 });
    index.put('k', { sequence: 9, topic: R1, producedAt: 2_500 });
    expect(place(index, copy(4, R1, 2_000))).toEqual({ kind: 'run' });
    expect(place(index, copy(9, R1, 2_500))).toMatchObject({ kind: 'park', head: { sequence: 4 } });
  });

  it('a record whose newer copy is in the chain is left behind, never run twice', () => {
    const index = new KeyIndex();
    // Source record 4 was copied to R1 before a crash, its commit lost.
    index.put('k', { sequence: 4, topic: R1, producedAt: 2_000 });
    expect(place(index, source(4, 'k', 1_000))).toEqual({ kind: 'left-behind' });
    // Then moved on to R2: the R1 copy read again is left behind too.
    index.put('k', { sequence: 4, topic: R2, producedAt: 3_000 });
    expect(place(index, copy(4, R1, 2_000))).toEqual({ kind: 'left-behind' });
    expect(place(index, copy(4, R2, 3_000))).toEqual({ kind: 'run' });
  });

  it('a record the scan found that left the chain: an older copy read after it is left behind', () => {
    const index = new KeyIndex();
    // A crash left copies on R1 and R2 above the commits; the scan found both.
    index.put('k', { sequence: 4, topic: R1, producedAt: 2_000, scanned: true });
    index.put('k', { sequence: 4, topic: R2, producedAt: 3_000, scanned: true });
    index.remove('k', 4);
    expect(index.size).toBe(0);
    expect(index.head('k')).toBeUndefined();
    expect(place(index, copy(4, R1, 2_000))).toEqual({ kind: 'left-behind' });
    expect(place(index, copy(4, R2, 3_000))).toEqual({ kind: 'left-behind' });
    expect(place(index, source(4, 'k', 1_000))).toEqual({ kind: 'left-behind' });
    // Newer than its last copy: a new record at that offset (a topic made again).
    expect(place(index, source(4, 'k', 5_000))).toEqual({ kind: 'run' });
    // A scanned record this owner copied on keeps that, and so does an index read again.
    index.put('k', { sequence: 5, topic: R1, producedAt: 2_000, scanned: true });
    index.put('k', { sequence: 5, topic: R2, producedAt: 4_000 });
    index.remove('k', 5);
    expect(place(index.afresh(), copy(5, R1, 2_000))).toEqual({ kind: 'left-behind' });
    // A record only this owner copied is forgotten: its older copy is below a commit already.
    index.put('k', { sequence: 7, topic: R1, producedAt: 2_000 });
    index.remove('k', 7);
    expect(place(index, copy(7, R1, 1_500))).toEqual({ kind: 'run' });
  });

  it('a source record newer than the copy known for its offset is a new record (a topic made again)', () => {
    const index = new KeyIndex();
    index.put('k', { sequence: 4, topic: R1, producedAt: 2_000 });
    expect(place(index, source(4, 'k', 5_000))).toEqual({ kind: 'run' });
  });
});
