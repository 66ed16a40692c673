import amqplib, { type ChannelModel, type GetMessage } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../../policy';
import { HEADERS } from '../../../runtime';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import { earliestEnd } from '../../support/broker-clock';
import {
  AMQP_URL,
  type Broker,
  body,
  brokerVersion,
  connect,
  drain,
  http503,
  InvalidCurrencyError,
  publish,
  rabbitPlan,
  uniqueName,
  waitFor,
  withTopology,
} from './support';

/** What each message does, by its id: `<phase>-<kind>-<n>`. */
type Kind =
  | 'ok'
  | 'flaky2'
  | 'flaky4'
  | 'permanent'
  | 'exhausted'
  | 'crash'
  | 'malformed'
  | 'malformed-exhausted';
const COUNTS: Record<Kind, number> = {
  ok: 12,
  flaky2: 6,
  flaky4: 4,
  permanent: 3,
  exhausted: 3,
  crash: 3,
  malformed: 3,
  'malformed-exhausted': 2,
};
/** Attempts a kind fails before it succeeds; 5 is never (maxAttempts is 4). */
const FAILS_UNTIL: Partial<Record<Kind, number>> = {
  flaky2: 2,
  flaky4: 4,
  exhausted: 5,
  malformed: 2,
  'malformed-exhausted': 5,
};
const DEAD_KINDS: Kind[] = ['permanent', 'exhausted', 'malformed-exhausted'];
const MALFORMED = ['three', -2, '99999999999999999999'];

interface Delivery {
  id: string;
  attempt: number;
  at: number;
  process: number;
  outcome: 'ok' | 'transient' | 'permanent' | 'crash';
}

function kindOf(id: string): Kind {
  return id.replace(/^[ab]-/, '').replace(/-\d+$/, '') as Kind;
}

/**
 * A run with mixed outcomes, as an acceptance check would throw at it: healthy messages,
 * transient failures that recover on attempt 2 or 4, permanent failures, exhausted ones,
 * malformed attempt headers and, in ttl-queues mode, a first wait queue too small for the
 * failures (max-length 3). Two processes consume at once, each with two consumers on two
 * channels of one connection.
 *
 * Phase a runs without crashes and is held to exactly-once: one outcome per message, attempts
 * 1, 2, 3 … with no wait shorter than planned, and true dead-letter metadata. Phase b repeats it
 * while three consumer processes crash mid-message (each replaced, as a supervisor would), and is
 * held to at-least-once: every message ends as its kind says, nothing is lost or left behind.
 */
describe('a mixed run', async () => {
  const broker = await brokerVersion();
  describe('ttl-queues', () => mixedRun('ttl-queues', '3.10.8'));
  describe.skipIf(!broker.at([4, 3]))('quorum-delayed-retry (RabbitMQ 4.3 and later only)', () =>
    mixedRun('quorum-delayed-retry', '4.3.0'),
  );
});

function mixedRun(mode: 'ttl-queues' | 'quorum-delayed-retry', brokerVersionStated: string): void {
  const plan: RetryPlan = rabbitPlan(
    uniqueName(mode === 'ttl-queues' ? 'mixed-ttl' : 'mixed-qdr'),
    { backoff: { type: 'list', delays: ['500ms', '1s', '1500ms'] } },
    { mode, brokerVersion: brokerVersionStated, waitQueueMaxLength: 3 },
  );
  const target = plan.targets.rabbitmq;
  if (!target) throw new Error('no rabbitmq target');
  const rabbit = target;
  const idsOf = (phase: 'a' | 'b') =>
    (Object.keys(COUNTS) as Kind[])
      .filter((kind) => phase === 'b' || kind !== 'crash')
      .flatMap((kind) => Array.from({ length: COUNTS[kind] }, (_, index) => `${phase}-${kind}-${index}`));
  const phaseA = idsOf('a');
  const phaseB = idsOf('b');
  const log: Delivery[] = [];
  const crashed = new Set<string>();
  /** When each crashed process died. */
  const crashedAt = new Map<number, number>();
  const processes: ChannelModel[] = [];
  const dead: GetMessage[] = [];
  let client: Broker;
  let removeTopology: () => Promise<void>;

  /** One consumer process: a connection with two consumers on two channels. */
  async function startProcess(): Promise<void> {
    const number = processes.length;
    const connection = await amqplib.connect(AMQP_URL);
    connection.on('error', () => {});
    processes.push(connection);
    for (let index = 0; index < 2 && !crashedAt.has(number); index++) {
      // A process can crash while it is still starting its second consumer: that is fine.
      const channel = await connection.createConfirmChannel().catch(() => undefined);
      if (!channel) return;
      channel.on('error', () => {});
      await consumeWithRetries(
        channel,
        plan,
        async (message, context) => {
          const { id } = body(message);
          const entry: Delivery = {
            id,
            attempt: context.attempt,
            at: Date.now(),
            process: number,
            outcome: 'ok',
          };
          log.push(entry);
          const kind = kindOf(id);
          if (kind === 'crash' && !crashed.has(id)) {
            // The process dies mid-message; a new one takes its place, as a supervisor would.
            crashed.add(id);
            crashedAt.set(number, Date.now());
            entry.outcome = 'crash';
            await connection.close().catch(() => undefined);
            setTimeout(() => void startProcess(), 200);
            await new Promise(() => {});
          }
          if (kind === 'permanent') {
            entry.outcome = 'permanent';
            throw new InvalidCurrencyError('Unsupported currency XXX');
          }
          if (context.attempt < (FAILS_UNTIL[kind] ?? 0)) {
            entry.outcome = 'transient';
            throw http503();
          }
        },
        { refusedPublishBackoff: { initialMs: 200, maxMs: 1_000 } },
      ).catch((error) => {
        if (!crashedAt.has(number)) throw error;
      });
    }
  }

  function deliveriesOf(id: string): Delivery[] {
    return log.filter((entry) => entry.id === id).sort((a, b) => a.at - b.at);
  }

  function deadOf(id: string): GetMessage[] {
    return dead.filter((message) => body(message).id === id);
  }

  /** Whether a process crashed between two moments (what it had in flight comes again). */
  function crashBetween(from: number, to: number): boolean {
    return [...crashedAt.values()].some((at) => at >= from - 50 && at <= to + 50);
  }

  async function send(ids: string[]): Promise<void> {
    let malformed = 0;
    for (const id of ids) {
      const kind = kindOf(id);
      const header = mode === 'ttl-queues' ? HEADERS.attempt : 'x-delivery-count';
      const headers = kind.startsWith('malformed')
        ? { [header]: MALFORMED[malformed++ % MALFORMED.length] }
        : {};
      await publish(client, plan, { id }, { messageId: id, headers });
    }
  }

  async function finish(ids: string[]): Promise<void> {
    const deadCount = ids.filter((id) => DEAD_KINDS.includes(kindOf(id))).length;
    await waitFor(
      async () => {
        dead.push(...(await drain(client, rabbit.deadLetterQueue)));
        const finished = new Set([
          ...log.filter((entry) => entry.outcome === 'ok').map((entry) => entry.id),
          ...dead.map((message) => body(message).id),
        ]);
        const deadHere = dead.filter((message) => ids.includes(body(message).id)).length;
        return (deadHere >= deadCount && ids.every((id) => finished.has(id))) || undefined;
      },
      90_000,
      'every message to finish',
    );
    // A duplicate would come in now too.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    dead.push(...(await drain(client, rabbit.deadLetterQueue)));
  }

  beforeAll(async () => {
    removeTopology = await withTopology(plan);
    client = await connect();
    await startProcess();
    await startProcess();
    await send(phaseA);
    await finish(phaseA);
    // Phase b: the crashing messages come once the rest has been delivered once, so the crashes
    // hit a run in full swing (retries waiting, wait queues full).
    const crashing = phaseB.filter((id) => kindOf(id) === 'crash');
    const rest = phaseB.filter((id) => kindOf(id) !== 'crash');
    await send(rest);
    await waitFor(
      () => rest.every((id) => log.some((entry) => entry.id === id)) || undefined,
      30_000,
      'every message of phase b delivered once',
    );
    for (const id of crashing) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await send([id]);
    }
    await finish(phaseB);
  }, 240_000);

  afterAll(async () => {
    for (const connection of processes) await connection.close().catch(() => undefined);
    await client?.close();
    await removeTopology?.();
  });

  it('without crashes: one outcome per message, as its kind says', () => {
    for (const id of phaseA) {
      const successes = deliveriesOf(id).filter((entry) => entry.outcome === 'ok').length;
      const expected = DEAD_KINDS.includes(kindOf(id))
        ? { successes: 0, dead: 1 }
        : { successes: 1, dead: 0 };
      expect({ id, successes, dead: deadOf(id).length }).toEqual({ id, ...expected });
    }
  });

  it('without crashes: attempts 1, 2, 3 … and no wait shorter than planned', () => {
    let latest = 0;
    for (const id of phaseA) {
      const mine = deliveriesOf(id);
      expect({ id, attempts: mine.map((entry) => entry.attempt) }).toEqual({
        id,
        attempts: mine.map((_, index) => index + 1),
      });
      for (let index = 1; index < mine.length; index++) {
        const before = mine[index - 1] as Delivery;
        const waited = (mine[index] as Delivery).at - before.at;
        const level = rabbit.levels[before.attempt - 1];
        if (!level) throw new Error(`no level after attempt ${before.attempt}`);
        expect(before.outcome).toBe('transient');
        // ttl-queues: the runtime holds an early copy; quorum-delayed-retry: the broker's clock alone.
        expect(waited).toBeGreaterThanOrEqual(
          mode === 'ttl-queues' ? level.waitMs.min : earliestEnd(level.waitMs.min),
        );
        latest = Math.max(latest, waited - level.waitMs.max);
      }
    }
    // How late, measured and printed, not asserted: a loaded machine moves it by seconds. (In
    // ttl-queues mode a full wait queue also holds a copy back on purpose.)
    console.log(`mixed run (${mode}): latest wait ${latest} ms beyond the plan's longest`);
  });

  it('without crashes: every dead letter says why, on which attempt, and when it first failed', () => {
    for (const id of phaseA.filter((each) => DEAD_KINDS.includes(kindOf(each)))) {
      const [message] = deadOf(id);
      const headers = message?.properties.headers ?? {};
      const mine = deliveriesOf(id);
      const first = mine[0] as Delivery;
      const last = mine[mine.length - 1] as Delivery;
      const permanent = kindOf(id) === 'permanent';
      expect(headers).toMatchObject({
        [HEADERS.reason]: permanent ? 'permanent' : 'exhausted',
        [HEADERS.errorName]: permanent ? 'InvalidCurrencyError' : 'HttpRequestError',
        [HEADERS.attempt]: last.attempt,
        [HEADERS.source]: rabbit.mainQueue,
      });
      expect(message?.properties.messageId).toBe(id);
      expect(Number(headers[HEADERS.deadLetteredAt])).toBeGreaterThanOrEqual(last.at);
      if (mode === 'quorum-delayed-retry' && last.attempt > 1) {
        // The broker keeps no time of the first failure: the header is left out, not made up.
        expect(headers).not.toHaveProperty(HEADERS.firstFailureAt);
      } else {
        expect(Number(headers[HEADERS.firstFailureAt])).toBeGreaterThanOrEqual(first.at);
        expect(Number(headers[HEADERS.firstFailureAt])).toBeLessThan(
          mine[1]?.at ?? Number(headers[HEADERS.deadLetteredAt]) + 1,
        );
      }
      if (mode === 'ttl-queues' && kindOf(id) === 'malformed-exhausted') {
        expect(MALFORMED.map(String)).toContain(headers[HEADERS.attemptInvalid]);
      }
    }
  });

  it('with crashes: every message still ends as its kind says, at least once', () => {
    expect(crashed.size).toBe(COUNTS.crash);
    for (const id of phaseB) {
      const succeeded = deliveriesOf(id).some((entry) => entry.outcome === 'ok');
      const deadLetters = deadOf(id);
      if (DEAD_KINDS.includes(kindOf(id))) {
        expect({ id, succeeded, dead: deadLetters.length > 0 }).toEqual({ id, succeeded: false, dead: true });
      } else {
        // A crash on the last attempt lets the broker dead-letter it instead (quorum-delayed-retry).
        const byBroker = deadLetters.some(
          (message) => message.properties.headers?.[HEADERS.reason] === undefined,
        );
        expect({ id, ended: succeeded || byBroker }).toEqual({ id, ended: true });
      }
    }
  });

  it('with crashes: attempts stay within maxAttempts, and no retry came sooner than planned', () => {
    for (const id of phaseB) {
      const mine = deliveriesOf(id);
      for (const [index, entry] of mine.entries()) {
        expect(entry.attempt).toBeLessThanOrEqual(rabbit.maxAttempts);
        if (index === 0 || entry.attempt === 1) continue;
        // A crash can duplicate a message, so the retry's cause is any failed delivery of the
        // attempt before it: one of them must lie at least the level's wait back.
        const waitMin = rabbit.levels[entry.attempt - 2]?.waitMs.min ?? 0;
        const cause = mine.some(
          (before) =>
            before.attempt === entry.attempt - 1 &&
            before.outcome === 'transient' &&
            entry.at - before.at >= waitMin,
        );
        // Or a crash put it back (ttl-queues: the same attempt again; quorum-delayed-retry: the
        // next attempt, as RabbitMQ 4.3 counts a delivery on a closed channel as failed).
        const previous = mine[index - 1] as Delivery;
        expect({
          id,
          attempt: entry.attempt,
          explained: cause || crashBetween(previous.at, entry.at),
        }).toEqual({
          id,
          attempt: entry.attempt,
          explained: true,
        });
      }
    }
  });

  it('with crashes: every dead letter is true, the runtime’s or the broker’s own', () => {
    for (const message of dead.filter((each) => phaseB.includes(body(each).id))) {
      const { id } = body(message);
      const headers = message.properties.headers ?? {};
      if (headers[HEADERS.reason] === undefined) {
        // Only the broker dead-letters without our headers, at the main queue's delivery limit:
        // in quorum-delayed-retry mode a crash on the last attempt (RabbitMQ 4.3 counts it); in
        // ttl-queues mode a message given back often enough, by crashes and by the stops that
        // return a message held for a full wait queue (seen once: three crashes, limit 5).
        const death = (headers['x-death']?.[0] ?? {}) as { reason?: string; queue?: string };
        expect({ id, reason: death.reason, queue: death.queue }).toEqual({
          id,
          reason: 'delivery_limit',
          queue: rabbit.mainQueue,
        });
        continue;
      }
      const permanent = kindOf(id) === 'permanent';
      expect(headers).toMatchObject({
        [HEADERS.reason]: permanent ? 'permanent' : 'exhausted',
        [HEADERS.source]: rabbit.mainQueue,
      });
      // The attempt it names is one that ran and failed.
      const failed = deliveriesOf(id).filter(
        (entry) => entry.outcome === 'transient' || entry.outcome === 'permanent',
      );
      expect(failed.map((entry) => entry.attempt)).toContain(headers[HEADERS.attempt]);
    }
  });

  it('leaves nothing in the main queue or the wait queues', async () => {
    for (const queue of rabbit.queues.filter((each) => each.role !== 'dead-letter')) {
      expect(await drain(client, queue.name)).toEqual([]);
    }
  });
}
