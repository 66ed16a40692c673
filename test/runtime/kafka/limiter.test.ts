import { describe, expect, it } from 'vitest';
import { Limiter } from '../../../runtime/kafka/limiter';

/** One turn of the event loop, so that a task that ended hands its slot over. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the limiter', () => {
  it('runs at most `limit` tasks at once, the others in the order they came', async () => {
    const limiter = new Limiter(2);
    const gates: Array<() => void> = [];
    const started: number[] = [];
    const runs = [0, 1, 2, 3].map((index) =>
      limiter.run(async () => {
        started.push(index);
        await new Promise<void>((resolve) => gates.push(resolve));
      }),
    );
    await turn();
    expect(started).toEqual([0, 1]);
    gates[0]?.();
    await turn();
    expect(started).toEqual([0, 1, 2]);
    gates[1]?.();
    gates[2]?.();
    await turn();
    gates[3]?.();
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it('gives a freed slot to each partition’s lane in turn, not to one large batch first', async () => {
    const limiter = new Limiter(1);
    const started: string[] = [];
    let release: () => void = () => {};
    const first = limiter.run(
      () =>
        new Promise<void>((resolve) => {
          started.push('a0');
          release = resolve;
        }),
      'a',
    );
    const runs = [
      ...['a1', 'a2', 'a3', 'a4'].map((name) => limiter.run(async () => void started.push(name), 'a')),
      ...['b0', 'b1'].map((name) => limiter.run(async () => void started.push(name), 'b')),
    ];
    release();
    await Promise.all([first, ...runs]);
    expect(started).toEqual(['a0', 'a1', 'b0', 'a2', 'b1', 'a3', 'a4']);
  });

  it('keeps its memory bounded under a backlog that never drains', async () => {
    const limiter = new Limiter(1);
    let most = 0;
    // 20,000 tasks through one slot, with 100 more always waiting: the line never empties.
    let submitted = 0;
    const submit = () => {
      submitted++;
      void limiter.run(async () => {
        most = Math.max(most, limiter.retained);
        if (submitted < 20_000) submit();
      });
    };
    for (let index = 0; index < 100; index++) submit();
    while (limiter.queued > 0) await turn();
    expect(submitted).toBe(20_000);
    // Without compaction the line would have held every one of the 20,000 resolvers.
    expect(most).toBeLessThan(2 * 1_024 + 200);
  });
});
