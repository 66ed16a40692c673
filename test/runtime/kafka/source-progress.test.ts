import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_MARK_CHARS, parseMark, SourceProgress } from '../../../runtime/kafka/source-progress';

describe('SourceProgress (the source commit with queued records)', () => {
  it('commits past every finished record while nothing is queued', () => {
    const progress = new SourceProgress(10n);
    progress.finish(10n);
    progress.finish(11n);
    expect(progress.mark()).toEqual({ offset: 12n, metadata: 'rt1:0:' });
  });

  it('keeps the commit at the oldest queued record and lists what is done past it', () => {
    const progress = new SourceProgress(10n);
    progress.hold(10n);
    progress.finish(11n);
    progress.hold(12n);
    progress.finish(13n);
    const mark = progress.mark();
    expect(mark.offset).toBe(10n);
    // A new owner reads from 10: 10 and 12 again, 11 and 13 skipped.
    const reread = new SourceProgress(mark.offset, mark.metadata);
    expect([10n, 11n, 12n, 13n, 14n].map((offset) => reread.isDone(offset))).toEqual([
      false,
      true,
      false,
      true,
      false,
    ]);
    progress.finish(10n);
    expect(progress.mark().offset).toBe(12n);
  });

  it('says whether a record before an offset is still pending (the consumer must not be past it)', () => {
    const progress = new SourceProgress(10n, 'rt1:4:2'); // 10 and 12 pending, 11 and 13 done
    expect([10n, 11n, 14n].map((offset) => progress.pendingBelow(offset))).toEqual([false, true, true]);
    progress.finish(10n);
    progress.finish(12n);
    expect(progress.pendingBelow(14n)).toBe(false);
  });

  it('round-trips any set of queued records through the commit metadata', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 499 }), { maxLength: 100 }), (list) => {
        const queued = new Set(list);
        const high = 500;
        const progress = new SourceProgress(0n);
        for (let offset = 0; offset < high; offset++) {
          if (queued.has(offset)) progress.hold(BigInt(offset));
          else progress.finish(BigInt(offset));
        }
        const mark = progress.mark();
        const reread = new SourceProgress(mark.offset, mark.metadata);
        const offsets = Array.from(
          { length: high + 1 - Number(mark.offset) },
          (_, i) => Number(mark.offset) + i,
        );
        expect(offsets.map((offset) => reread.isDone(BigInt(offset)))).toEqual(
          offsets.map((offset) => offset < high && !queued.has(offset)),
        );
      }),
      { numRuns: 50 },
    );
  });

  it('reads a damaged or foreign metadata as nothing known: every record from the commit again', () => {
    for (const metadata of [null, '', 'consumer-x', 'rt1:zz', 'rt1:5:0', 'rt1:2:5', 'rt1:-1:']) {
      expect(parseMark(7n, metadata)).toBeUndefined();
      expect(new SourceProgress(7n, metadata).isDone(8n)).toBe(false);
    }
  });

  it('says when one more queued record would not fit Kafka’s metadata limit', () => {
    const progress = new SourceProgress(0n);
    let offset = 0n;
    while (progress.fits(offset)) {
      progress.hold(offset);
      offset += 1_000_000n; // far apart: the longest gaps
    }
    expect(progress.mark().metadata.length).toBeLessThanOrEqual(MAX_MARK_CHARS);
    expect(progress.pendingCount).toBeGreaterThan(100);
  });
});
