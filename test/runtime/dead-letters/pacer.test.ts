import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../policy/random';
import { PACER_MARGIN_MS, Pacer } from '../../../runtime/dead-letters';
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

/**
 * A replay's sends as the broker sees them: each message the pacer lets go lands `latency(i)` ms
 * later and is confirmed `confirm(i)` ms after that, with up to `inFlight` unconfirmed at once (as
 * a replay keeps them); the pacer hears of each confirmation. Returns the pacer's times, the
 * landing times, and when a consumer that adds `delivery(i)` ms got each.
 */
async function landed(
  count: number,
  perSecond: number,
  sends: {
    latency: (index: number) => number;
    confirm?: (index: number) => number;
    delivery?: (index: number) => number;
    inFlight?: number;
    random?: () => number;
  },
) {
  const clock = new FakeClock(0);
  const pacer = new Pacer(perSecond, clock, sends.random ?? mulberry32(17));
  const sent: number[] = [];
  const arrived: number[] = [];
  const delivered: number[] = [];
  const inFlight = new Set<Promise<void>>();
  const run = (async () => {
    for (let index = 0; index < count; index++) {
      while (inFlight.size >= (sends.inFlight ?? 1)) await Promise.race(inFlight);
      const turn = await pacer.take();
      sent.push(turn.at);
      const landing = (async () => {
        await clock.sleep(sends.latency(index));
        arrived.push(clock.now());
        delivered.push(clock.now() + (sends.delivery?.(index) ?? 0));
        await clock.sleep(sends.confirm?.(index) ?? 0);
        turn.settled();
      })();
      const tracked = landing.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    }
    await Promise.all(inFlight);
  })();
  let done = false;
  const end = () => {
    done = true;
  };
  void run.then(end, end);
  while (!done) await clock.advance(1);
  await run;
  return { sent, arrived, delivered };
}

/** Every pair of times `perSecond` apart in order that are not more than a second apart. */
function crowdedWindows(times: number[], perSecond: number): Array<[number, number]> {
  const sorted = [...times].sort((a, b) => a - b);
  const crowded: Array<[number, number]> = [];
  for (let index = 0; index + perSecond < sorted.length; index++) {
    const first = sorted[index] as number;
    const last = sorted[index + perSecond] as number;
    if (last - first <= 1_000) crowded.push([first, last]);
  }
  return crowded;
}

describe('Pacer', () => {
  it('without jitter drawn (random 0) sends one per slot from the start', async () => {
    expect(await paced(5, 10, () => 0)).toEqual([0, 100, 200, 300, 400]);
  });

  it('puts each message at a random point of its own slot: the mean rate holds and no window runs faster', async () => {
    const times = await paced(500, 50, mulberry32(7));
    // Slot i is [20 i, 20 (i + 1)) ms: no message before its own. The one-second cap holds one
    // back until a second and the margin after the one 50 before it, so the slots drift by about
    // the margin a second, no more.
    times.forEach((at, index) => {
      expect(at).toBeGreaterThanOrEqual(index * 20);
      expect(at).toBeLessThanOrEqual(
        (index + 1) * 20 + Math.ceil((index * 20) / 1_000) * PACER_MARGIN_MS + 1,
      );
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

  it('keeps the mean rate: 500 at 50/s take ten seconds, give or take a slot and the margin once a second', async () => {
    const times = await paced(500, 50, mulberry32(11));
    expect((times[499] as number) - (times[0] as number)).toBeGreaterThanOrEqual(9_960);
    expect(times[499]).toBeLessThanOrEqual(10_000 + 10 * PACER_MARGIN_MS + 60);
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
    expect(times[499]).toBeLessThanOrEqual(5_000 + 5 * PACER_MARGIN_MS + 50);
    expect(mostInOneSecond(times)).toBeLessThanOrEqual(100);

    // At 500/s a slot (2 ms) is shorter than the lateness: the schedule still holds.
    at = 0;
    const quick = new Pacer(500, late, mulberry32(5));
    const quickTimes: number[] = [];
    for (let index = 0; index < 1_000; index++) quickTimes.push(await quick.wait());
    expect(quickTimes[999]).toBeLessThanOrEqual(2_000 + 2 * PACER_MARGIN_MS + 50);
    expect(mostInOneSecond(quickTimes)).toBeLessThanOrEqual(500);

    sleeps = 0;
    const fast = new Pacer(1_000_000, late, mulberry32(5));
    for (let index = 0; index < 1_000; index++) await fast.wait();
    expect(sleeps).toBe(0);
  });

  it('holds the rate in every one-second window of arrivals, when each send takes its own time to land', async () => {
    const random = mulberry32(23);
    const latencies = [...Array(600).keys()].map(() => Math.floor(random() * 250));
    const cases = {
      // Up to a quarter second to land, each its own; 32 unconfirmed at once, as on RabbitMQ.
      varying: { latency: (index: number) => latencies[index] as number, inFlight: 32 },
      // The worst for a cap on send times: one second's copies slow, the next second's quick.
      'slow, then quick': {
        latency: (index: number) => (Math.floor(index / 50) % 2 === 0 ? 200 : 0),
        inFlight: 32,
      },
      // One at a time, confirmed a while after it landed (Kafka: the commit follows the produce).
      'one at a time': {
        latency: (index: number) => (index % 3) * 6,
        confirm: (index: number) => (index % 4) * 2,
        inFlight: 1,
      },
    };
    for (const [name, sends] of Object.entries(cases)) {
      const { sent, arrived } = await landed(600, 50, sends);
      expect(crowdedWindows(arrived, 50), name).toEqual([]);
      expect(crowdedWindows(sent, 50), name).toEqual([]);
      expect(mostInOneSecond(arrived), name).toBeLessThanOrEqual(50);
      // And still about the rate: twelve seconds, the latency and the margin once a second.
      expect(sent[599], name).toBeLessThanOrEqual(12_000 + 12 * (250 + PACER_MARGIN_MS) + 60);
    }
  });

  it('holds it where a consumer receives them too, while its delivery times differ by less than the margin', async () => {
    const random = mulberry32(31);
    const { delivered } = await landed(400, 40, {
      latency: (index) => (Math.floor(index / 40) % 2 === 0 ? 150 : 0),
      delivery: () => Math.floor(random() * PACER_MARGIN_MS),
      inFlight: 32,
    });
    expect(crowdedWindows(delivered, 40)).toEqual([]);
  });

  it('lets no message go before the one a rate earlier has settled, and a stopped replay stops waiting', async () => {
    const clock = new FakeClock(0);
    const pacer = new Pacer(2, clock, () => 0);
    const first = await pacer.take();
    const second = (async () => {
      const turn = pacer.take();
      await clock.advance(500);
      return turn;
    })();
    await second;
    const controller = new AbortController();
    let third: number | undefined;
    const waiting = pacer.take(controller.signal).then((turn) => {
      third = turn.at;
      return turn;
    });
    await clock.advance(5_000); // the first is still unconfirmed: the third waits
    expect(third).toBeUndefined();
    first.settled();
    const settledAt = clock.now();
    await clock.advance(2_000);
    expect(third).toBe(settledAt + 1_000 + PACER_MARGIN_MS);
    (await waiting).settled();

    // The fourth waits on the second, which never settles; an abort ends the wait.
    const fourth = pacer.take(controller.signal);
    await clock.advance(3_000);
    controller.abort(new Error('stopped'));
    await expect(fourth).rejects.toThrow('stopped');
  });

  it('refuses a rate of 0 or less', () => {
    expect(() => new Pacer(0, new FakeClock(), Math.random)).toThrow(RangeError);
  });
});
