import { describe, expect, it } from 'vitest';
import { RetryTopologyError } from '../../../runtime';
import { HeldPublishes } from '../../../runtime/rabbitmq/held';
import { stoppableClock } from '../../../runtime/stoppable-clock';
import { FakeClock, flush } from '../../support/fake-clock';

/**
 * A wait queue at max-length with reject-publish, on a fake clock: a message leaves `ttlMs` after
 * it entered, and a publish is refused once the queue is already over max-length (3.10.8's quorum
 * queues: max-length 1 takes two).
 */
function fullLevel(clock: FakeClock, maxLength: number, ttlMs: number) {
  let expiries: number[] = [];
  let concurrent = 0;
  let mostConcurrent = 0;
  const resetConcurrency = () => {
    mostConcurrent = concurrent;
  };
  const tries: number[] = [];
  const publish = async () => {
    concurrent++;
    mostConcurrent = Math.max(mostConcurrent, concurrent);
    tries.push(clock.now());
    await Promise.resolve();
    concurrent--;
    expiries = expiries.filter((at) => at > clock.now());
    if (expiries.length > maxLength) throw new RetryTopologyError('publish-refused', 'full');
    expiries.push(clock.now() + ttlMs);
  };
  return { publish, tries, mostConcurrent: () => mostConcurrent, resetConcurrency };
}

function setUp(random = () => 0.5) {
  const clock = new FakeClock();
  const stop = new AbortController();
  const held = new HeldPublishes(
    stoppableClock(clock, stop.signal),
    random,
    { initialMs: 1_000, maxMs: 30_000 },
    stop.signal,
  );
  return { clock, stop, held };
}

describe('HeldPublishes', () => {
  it('takes 40 copies through a full level close to its drain rate, one try at a time, oldest first', async () => {
    const { clock, held } = setUp(Math.random);
    // Max-length 5 (six fit), a 300 ms wait: six copies per 300 ms is the most the level drains.
    const level = fullLevel(clock, 5, 300);
    const sent: Array<{ id: number; at: number }> = [];
    const start = clock.now();
    for (let id = 0; id < 40; id++) {
      void held
        .publish('wait.1', 300, level.publish, () => {})
        .then((outcome) => {
          if (outcome === 'sent') sent.push({ id, at: clock.now() - start });
        });
    }
    // Each copy is tried once straight away (no line yet); after that, one try at a time.
    await flush();
    expect(level.tries).toHaveLength(40);
    level.resetConcurrency();
    await clock.advance(10_000);
    expect(level.mostConcurrent()).toBe(1);
    expect(sent).toHaveLength(40);
    // The first six go in at once; the other 34 need ceil(34 / 6) = 6 more drains of 300 ms.
    const ideal = 6 * 300;
    const took = Math.max(...sent.map((each) => each.at));
    expect(took).toBeGreaterThanOrEqual(ideal);
    expect(took).toBeLessThan(ideal * 1.25);
    expect(sent.slice(6).map((each) => each.id)).toEqual([...Array(34).keys()].map((index) => index + 6));
  });

  it('never waits longer than the level’s own wait, nor than maxMs', async () => {
    const { clock, held } = setUp(() => 0.999);
    const level = fullLevel(clock, 0, 60 * 60_000);
    void held.publish('wait.1', 60 * 60_000, level.publish, () => {});
    void held.publish('wait.1', 60 * 60_000, level.publish, () => {});
    await clock.advance(5 * 60_000);
    const gaps = level.tries.slice(2).map((at, index) => at - (level.tries[index + 1] ?? 0));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(30_000);
    expect(gaps.at(-1)).toBeGreaterThan(29_000);
    // Growing from 1 s: 0.5–1, 1–2, 2–4 … never two tries in the same instant.
    expect(gaps[0]).toBeLessThanOrEqual(1_000);
  });

  it('spreads the retries of held copies: no two lines retry in lock-step', async () => {
    let seed = 1;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const { clock, held } = setUp(random);
    const a = fullLevel(clock, 0, 60_000);
    const b = fullLevel(clock, 0, 60_000);
    void held.publish('wait.a', 60_000, a.publish, () => {});
    void held.publish('wait.b', 60_000, b.publish, () => {});
    await clock.advance(20_000);
    const common = a.tries.slice(1).filter((at) => b.tries.includes(at));
    expect(common).toEqual([]);
  });

  it('answers "stopped" for every held copy when the consumer stops, and tries no more', async () => {
    const { clock, stop, held } = setUp();
    const level = fullLevel(clock, 0, 60_000);
    const outcomes: string[] = [];
    for (let id = 0; id < 3; id++)
      void held.publish('wait.1', 60_000, level.publish, () => {}).then((each) => outcomes.push(each));
    await clock.advance(1_000);
    await flush();
    expect(outcomes).toEqual(['sent']);
    const tries = level.tries.length;
    stop.abort(new Error('stopping'));
    await flush();
    expect(outcomes).toEqual(['sent', 'stopped', 'stopped']);
    await clock.advance(60_000);
    expect(level.tries).toHaveLength(tries);
    expect(clock.pending).toBe(0);
  });

  it('passes an error other than a refusal to its own copy and goes on with the line', async () => {
    const { clock, held } = setUp();
    let calls = 0;
    const flaky = async () => {
      calls++;
      if (calls === 1) throw new RetryTopologyError('publish-refused', 'full');
      if (calls === 2) throw new Error('channel closed');
    };
    const first = held.publish('wait.1', 1_000, flaky, () => {});
    await flush(); // refused: the line exists now, and the second joins it
    const second = held.publish('wait.1', 1_000, flaky, () => {});
    const settled = Promise.allSettled([first, second]);
    await clock.advance(1_000);
    expect((await settled).map((each) => each.status)).toEqual(['rejected', 'fulfilled']);
  });
});
