import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../cli/simulate/prng';
import { Pacer } from '../../../runtime/dead-letters';
import { fasterThan, mostInOneSecond } from '../../integration/dead-letters/mix';
import { FakeClock } from '../../support/fake-clock';

async function paced(
  count: number,
  perSecond: number,
  random: () => number,
  work?: (index: number, clock: FakeClock) => Promise<void>,
) {
  const clock = new FakeClock(0);
  const pacer = new Pacer(perSecond, clock, random);
  const times: number[] = [];
  const run = (async () => {
    for (let index = 0; index < count; index++) {
      await pacer.wait();
      times.push(clock.now());
      await work?.(index, clock);
    }
  })();
  let done = false;
  void run.then(() => {
    done = true;
  });
  while (!done) await clock.advance(1);
  return times;
}

describe('Pacer', () => {
  it('without jitter drawn (random 0) sends one per slot from the start', async () => {
    expect(await paced(5, 10, () => 0)).toEqual([0, 100, 200, 300, 400]);
  });

  it('puts each message at a random point of its own slot: the mean rate holds and no window runs faster', async () => {
    const times = await paced(500, 50, mulberry32(7));
    // Slot i is [20 i, 20 (i + 1)) ms: no message before its own. The one-second cap holds one
    // back a millisecond past a second after the one 50 before it, so the slots drift by about
    // a millisecond a second, no more.
    times.forEach((at, index) => {
      expect(at).toBeGreaterThanOrEqual(index * 20);
      expect(at).toBeLessThanOrEqual((index + 1) * 20 + Math.ceil((index * 20) / 1_000) + 1);
    });
    expect(fasterThan(times, 50, 0)).toEqual([]);
    // Jittered: the gaps are not all equal.
    const gaps = new Set(times.slice(1).map((at, index) => at - (times[index] as number)));
    expect(gaps.size).toBeGreaterThan(10);
  });

  it('never sends more than the rate in any one second, jitter or not', async () => {
    for (const seed of [1, 7, 42]) {
      expect(mostInOneSecond(await paced(500, 50, mulberry32(seed)))).toBeLessThanOrEqual(50);
    }
    // Jitter that puts one message at the very end of its slot and the next at the very start of
    // its own is the worst case: without the cap, 51 messages fall in one second.
    const edges = [0.999, 0];
    let turn = 0;
    const worst = await paced(120, 50, () => edges[turn++ % 2] as number);
    expect(mostInOneSecond(worst)).toBeLessThanOrEqual(50);
    // A rate with a fraction keeps to its whole part; one below 1/s sends one a second at most.
    expect(mostInOneSecond(await paced(40, 2.5, mulberry32(3)))).toBeLessThanOrEqual(2);
    expect(mostInOneSecond(await paced(6, 0.5, mulberry32(3)))).toBe(1);
  });

  it('keeps the mean rate: 500 at 50/s take ten seconds, give or take a slot', async () => {
    const times = await paced(500, 50, mulberry32(11));
    expect((times[499] as number) - (times[0] as number)).toBeGreaterThanOrEqual(9_960);
    expect(times[499]).toBeLessThanOrEqual(10_000 + 60);
  });

  it('does not catch up with a burst after a slow send', async () => {
    const times = await paced(
      6,
      10,
      () => 0,
      async (index, clock) => {
        if (index === 1) await clock.sleep(1_000); // the broker took a second to confirm
      },
    );
    // After the stall the next slot starts when the stall ends, not three slots back.
    expect(times).toEqual([0, 100, 1_100, 1_200, 1_300, 1_400]);
  });

  it('keeps its rate when every timer fires late, and does not sleep for less than a millisecond', async () => {
    // A loaded machine: each sleep lasts 4 ms longer than asked.
    let at = 0;
    let sleeps = 0;
    const late = {
      now: () => at,
      sleep: async (ms: number) => {
        sleeps++;
        at += ms + 4;
      },
    };
    const pacer = new Pacer(100, late, mulberry32(5));
    const times: number[] = [];
    for (let index = 0; index < 500; index++) times.push(await pacer.wait());
    // 500 at 100/s: five seconds and a little; restarting the schedule after each late timer took 5.46.
    expect(times[499]).toBeLessThanOrEqual(5_000 + 50);
    expect(mostInOneSecond(times)).toBeLessThanOrEqual(100);

    // At 500/s a slot (2 ms) is shorter than the lateness: the schedule still holds.
    at = 0;
    const quick = new Pacer(500, late, mulberry32(5));
    const quickTimes: number[] = [];
    for (let index = 0; index < 1_000; index++) quickTimes.push(await quick.wait());
    expect(quickTimes[999]).toBeLessThanOrEqual(2_000 + 50);
    expect(mostInOneSecond(quickTimes)).toBeLessThanOrEqual(500);

    sleeps = 0;
    const fast = new Pacer(1_000_000, late, mulberry32(5));
    for (let index = 0; index < 1_000; index++) await fast.wait();
    expect(sleeps).toBe(0);
  });

  it('refuses a rate of 0 or less', () => {
    expect(() => new Pacer(0, new FakeClock(), Math.random)).toThrow(RangeError);
  });
});
