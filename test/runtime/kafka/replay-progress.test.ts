import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  emptyProgress,
  encodeProgress,
  isDone,
  MAX_PROGRESS_METADATA,
  readProgress,
  withDone,
} from '../../../runtime/kafka/replay-progress';

describe('Kafka replay progress (the replay group’s committed offset and its metadata)', () => {
  it('moves the committed offset past every done record in a row and keeps the gaps in the metadata', () => {
    let progress = emptyProgress(10);
    for (const offset of [12, 13, 10, 20]) progress = withDone(progress, offset, 'replayed', 't[0]').progress;
    expect(progress.committed).toBe(11);
    expect([...progress.done].sort((a, b) => a - b)).toEqual([12, 13, 20]);
    const { progress: next, metadata } = withDone(progress, 11, 'purged', 't[0]');
    expect(next.committed).toBe(14);
    expect(next).toMatchObject({ replayed: 4, purged: 1 });
    expect(readProgress('14', metadata)).toEqual(next);
  });

  it('reads back exactly what it wrote, whatever the done set', () => {
    fc.assert(
      fc.property(
        fc.nat(1_000_000),
        fc.uniqueArray(fc.integer({ min: 1, max: 5_000 }), { maxLength: 300 }),
        (committed, relatives) => {
          const progress = {
            committed,
            done: new Set(relatives.map((each) => committed + each)),
            replayed: 7,
            purged: 2,
          };
          const read = readProgress(String(committed), encodeProgress(progress));
          expect(read).toEqual(progress);
          for (const each of relatives) expect(isDone(read, committed + each)).toBe(true);
          expect(isDone(read, committed)).toBe(false);
        },
      ),
    );
  });

  it('refuses, before anything is sent, progress that would not fit in the metadata', () => {
    // Every other record done over 40,000 offsets: the bitmap alone is 6.7 kB of base64.
    const progress = emptyProgress(0);
    for (let offset = 2; offset < 40_000; offset += 2) progress.done.add(offset);
    expect(encodeProgress(progress).length).toBeGreaterThan(MAX_PROGRESS_METADATA);
    expect(() => withDone(progress, 40_002, 'replayed', 'orders.dlt[1]')).toThrow(
      expect.objectContaining({ code: 'progress-full' }),
    );
  });

  it('treats metadata someone else wrote as no progress above the committed offset', () => {
    expect(readProgress('42', 'consumer-v2')).toEqual(emptyProgress(42));
    expect(readProgress('-1', null)).toEqual(emptyProgress(0));
  });
});
