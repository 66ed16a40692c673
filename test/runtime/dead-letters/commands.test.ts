import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../policy/random';
import { type Claim, type DeadLetterError, deadLetterCommands } from '../../../runtime/dead-letters';
import { mostInOneSecond } from '../../integration/dead-letters/mix';
import { FakeClock } from '../../support/fake-clock';
import { MemoryBroker } from './memory-broker';

/**
 * A broker a copy takes its time to reach: the i-th replay lands `latency(i)` ms after it was
 * sent (its confirmation right then), with up to 32 copies unconfirmed at once, as on RabbitMQ.
 */
class DistantBroker extends MemoryBroker {
  readonly landed: number[] = [];

  constructor(
    private readonly clock: FakeClock,
    private readonly latency: (index: number) => number,
  ) {
    super();
    this.maxInFlight = 32;
  }

  override async claim(): Promise<Claim> {
    const near = await super.claim();
    let sent = 0;
    return {
      ...near,
      replay: async (letter, copy) => {
        await this.clock.sleep(this.latency(sent++));
        this.landed.push(this.clock.now());
        return near.replay(letter, copy);
      },
    };
  }
}

function world() {
  const clock = new FakeClock(10 * 86_400_000);
  return { clock, random: () => 0.5 };
}

/** Runs the work while moving the fake clock, as the broker-neutral passes sleep on it. */
async function driven<T>(clock: FakeClock, work: Promise<T>): Promise<T> {
  let done = false;
  void work.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  while (!done) await clock.advance(10);
  return work;
}

describe('list', () => {
  it('counts by reason, error, source and age, with the oldest and newest', async () => {
    const { clock, random } = world();
    const now = clock.now();
    const broker = new MemoryBroker().add(6, (index) => ({
      reason: index < 3 ? 'permanent' : index < 5 ? 'exhausted' : 'broker-rejected',
      ...(index < 5
        ? { errorName: index < 3 ? 'InvalidCurrencyError' : 'HttpRequestError' }
        : { brokerReason: 'delivery_limit' }),
      source: 'billing',
      deadLetteredAt:
        now - ([60_000, 2 * 3_600_000, 3 * 86_400_000, 8 * 86_400_000, 30_000, 1_000][index] ?? 0),
    }));
    const summary = await deadLetterCommands(broker, { clock, random }).list();
    expect(summary).toMatchObject({
      total: 6,
      selected: 6,
      byReason: { permanent: 3, exhausted: 2, 'broker-rejected': 1, unknown: 0 },
      byBrokerReason: [{ name: 'delivery_limit', count: 1 }],
      byErrorName: [
        { name: 'InvalidCurrencyError', count: 3 },
        { name: 'HttpRequestError', count: 2 },
        { name: '(none)', count: 1 },
      ],
      bySource: [{ name: 'billing', count: 6 }],
      byAge: [
        { name: '< 1h', count: 3 },
        { name: '1h–1d', count: 1 },
        { name: '1d–7d', count: 1 },
        { name: '≥ 7d', count: 1 },
      ],
      oldest: { id: 'd-3', deadLetteredAt: now - 8 * 86_400_000 },
      newest: { id: 'd-5', deadLetteredAt: now - 1_000 },
    });
    expect(broker.stored).toHaveLength(6);
  });
});

describe('replay', () => {
  it('is a dry run unless told otherwise, and then changes nothing', async () => {
    const broker = new MemoryBroker().add(3);
    const report = await deadLetterCommands(broker, world()).replay({ ratePerSecond: 10 });
    expect(report).toMatchObject({ dryRun: true, selected: 3, replayed: 0, sample: ['d-0', 'd-1', 'd-2'] });
    expect(broker.replayed).toEqual([]);
  });

  it('replays only the selection, up to --max, in order, and leaves the rest', async () => {
    const { clock, random } = world();
    const broker = new MemoryBroker().add(10, (index) => ({ reason: index % 2 ? 'permanent' : 'exhausted' }));
    const report = await driven(
      clock,
      deadLetterCommands(broker, { clock, random }).replay({
        filter: { reasons: ['exhausted'], max: 3 },
        ratePerSecond: 10,
        dryRun: false,
      }),
    );
    expect(report).toMatchObject({ selected: 3, replayed: 3, notFound: 0 });
    expect(broker.replayed.map((each) => each.id)).toEqual(['d-0', 'd-2', 'd-4']);
    expect(broker.stored.map((each) => each.id)).toEqual(['d-1', 'd-3', 'd-5', 'd-6', 'd-7', 'd-8', 'd-9']);
    expect(broker.held.size).toBe(0);
  });

  it('lands no more copies than the rate in any one second, however long each takes to reach the broker', async () => {
    const { clock, random } = world();
    const jitter = mulberry32(5);
    // A second of copies that take 200 ms to land, then a second of copies that land at once,
    // and so on, with some jitter on both.
    const broker = new DistantBroker(clock, (index) =>
      Math.floor(index / 50) % 2 === 0 ? 180 + Math.floor(jitter() * 40) : Math.floor(jitter() * 5),
    ).add(400);
    const report = await driven(
      clock,
      deadLetterCommands(broker, { clock, random }).replay({ ratePerSecond: 50, dryRun: false }),
    );
    expect(report.replayed).toBe(400);
    expect(broker.landed).toHaveLength(400);
    expect(mostInOneSecond(broker.landed)).toBeLessThanOrEqual(50);
    // The copies' own stamps too.
    expect(mostInOneSecond(broker.replayed.map((each) => each.now))).toBeLessThanOrEqual(50);
  });

  it('takes a message whose lock ran out again later in the same pass', async () => {
    const { clock, random } = world();
    const broker = new MemoryBroker().add(3);
    broker.loseLockOnce.add('d-1');
    const report = await driven(
      clock,
      deadLetterCommands(broker, { clock, random }).replay({ ratePerSecond: 100, dryRun: false }),
    );
    expect(report.replayed).toBe(3);
    expect(broker.replayed.map((each) => each.id)).toEqual(['d-0', 'd-2', 'd-1']);
  });

  it('stops on a broker failure with a coded error that says what was done; the rest stay', async () => {
    const { clock, random } = world();
    const broker = new MemoryBroker().add(5);
    broker.failReplayAt = 2;
    const failure = await driven(
      clock,
      deadLetterCommands(broker, { clock, random }).replay({ ratePerSecond: 100, dryRun: false }),
    ).catch((error: DeadLetterError) => error);
    expect(failure).toMatchObject({ code: 'broker-failed', report: { replayed: 2, selected: 5 } });
    expect((failure as Error).message).toContain('the other 3 are still dead-lettered');
    expect(broker.stored.map((each) => each.id)).toEqual(['d-2', 'd-3', 'd-4']);
    expect(broker.held.size).toBe(0);
  });

  it('stops after what is in flight when the signal aborts, and says so', async () => {
    const { clock, random } = world();
    const broker = new MemoryBroker().add(50);
    const controller = new AbortController();
    const running = deadLetterCommands(broker, { clock, random }).replay({
      ratePerSecond: 10,
      dryRun: false,
      signal: controller.signal,
      onProgress: (progress) => {
        if (progress.replayed === 5) controller.abort();
      },
    });
    const report = await driven(clock, running);
    expect(report).toMatchObject({ stopped: true, replayed: 5, selected: 50 });
    expect(broker.stored).toHaveLength(45);
  });

  it('refuses --keep-attempts where the broker counts attempts itself', async () => {
    const broker = new MemoryBroker().add(1);
    broker.keepAttemptsUnsupported = 'the broker counts';
    await expect(
      deadLetterCommands(broker, world()).replay({ ratePerSecond: 1, keepAttempts: true, dryRun: false }),
    ).rejects.toMatchObject({ code: 'invalid-option' });
    expect(broker.replayed).toEqual([]);
  });
});

describe('purge', () => {
  it('needs --expect, refuses a count that differs, and deletes nothing then', async () => {
    const broker = new MemoryBroker().add(4, (index) => ({ reason: index < 3 ? 'permanent' : 'exhausted' }));
    const commands = deadLetterCommands(broker, world());
    await expect(commands.purge({ filter: { reasons: ['permanent'] }, dryRun: false })).rejects.toMatchObject(
      {
        code: 'expect-required',
      },
    );
    await expect(
      commands.purge({ filter: { reasons: ['permanent'] }, expect: 4, dryRun: false }),
    ).rejects.toMatchObject({ code: 'expect-mismatch', report: { selected: 3 } });
    expect(broker.removed).toEqual([]);
    const report = await commands.purge({ filter: { reasons: ['permanent'] }, expect: 3, dryRun: false });
    expect(report).toMatchObject({ purged: 3, selected: 3 });
    expect(broker.stored.map((each) => each.id)).toEqual(['d-3']);
  });
});
