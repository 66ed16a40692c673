import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_MARK_CHARS,
  readMark,
  type SourceMark,
  SourceProgress,
} from '../../../runtime/kafka/source-progress';

/** A new owner's view of a partition from a commit this runtime made. */
const reread = (mark: SourceMark) => new SourceProgress(mark.offset, readMark(mark.offset, mark.metadata));

describe('SourceProgress (the source commit with queued records)', () => {
  it('commits past every finished record while nothing is queued', () => {
    const progress = new SourceProgress(10n);
    progress.finish(10n);
    progress.finish(11n);
    expect(progress.mark()).toEqual({ offset: 12n, metadata: 'rt2:c:0:' });
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
    const next = reread(mark);
    expect([10n, 11n, 12n, 13n, 14n].map((offset) => next.isDone(offset))).toEqual([
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
    const progress = new SourceProgress(10n, readMark(10n, 'rt2:a:4:2')); // 10 and 12 pending, 11 and 13 done
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
        const next = reread(mark);
        const offsets = Array.from(
          { length: high + 1 - Number(mark.offset) },
          (_, i) => Number(mark.offset) + i,
        );
        expect(offsets.map((offset) => next.isDone(BigInt(offset)))).toEqual(
          offsets.map((offset) => offset < high && !queued.has(offset)),
        );
      }),
      { numRuns: 50 },
    );
  });

  it('reads no metadata as nothing known past the commit, without a complaint', () => {
    for (const metadata of [null, undefined, '']) expect(readMark(7n, metadata)).toEqual({ kind: 'none' });
  });

  it('ignores metadata that is not this runtime’s mark for the committed offset: every record from the commit again', () => {
    const cases: Array<[string, string]> = [
      ['consumer-x', 'not-a-mark'],
      // The earlier format did not name its offset: it cannot be told from a moved one.
      ['rt1:4:2', 'not-a-mark'],
      // Written at 5 (5 and 7 pending, 6 and 8 done), read at 7: a mirrored commit.
      ['rt2:5:4:2', 'other-offset'],
      ['rt2:zz', 'damaged'],
      ['rt2:7:5:0', 'damaged'], // a gap of 0
      ['rt2:7:2:5', 'damaged'], // a pending offset past the span
      ['rt2:7:0:1', 'damaged'], // pending offsets with nothing read
      ['rt2:7:-1:', 'damaged'],
      ['rt2:7:1:1.1.1🙂', 'damaged'], // not base 36
    ];
    for (const [metadata, reason] of cases) {
      expect(readMark(7n, metadata), metadata).toEqual({ kind: 'ignored', reason });
      const progress = new SourceProgress(7n, readMark(7n, metadata));
      expect([7n, 8n, 9n].map((offset) => progress.isDone(offset))).toEqual([false, false, false]);
    }
  });

  it('ignores a mark that says records past the end of the log are done', () => {
    // 7 pending, 8 to 11 done: the log must reach 12.
    expect(readMark(7n, 'rt2:7:5:', 12n)).toEqual({ kind: 'mark', high: 12n, pending: [7n] });
    expect(readMark(7n, 'rt2:7:5:', 11n)).toEqual({ kind: 'ignored', reason: 'past-log-end' });
    expect(readMark(7n, `rt2:7:${'z'.repeat(10)}:`, 12n)).toEqual({
      kind: 'ignored',
      reason: 'past-log-end',
    });
  });

  it('reads offsets and spans past 2^53 exactly', () => {
    const offset = 2n ** 60n + 1n;
    const progress = new SourceProgress(offset);
    progress.hold(offset);
    progress.finish(offset + 1n);
    const next = reread(progress.mark());
    expect([offset, offset + 1n, offset + 2n].map((each) => next.isDone(each))).toEqual([false, true, false]);
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
