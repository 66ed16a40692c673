import { describe, expect, it } from 'vitest';
import { consumeWithFailover, type FailoverEvent } from '../../../runtime/rabbitmq';
import { type FailoverSession, runFailover, withHeartbeat } from '../../../runtime/rabbitmq/failover';
import { FakeClock } from '../../support/fake-clock';
import { billingPlan } from '../plan-fixture';
import { recordingChannel } from './recording-channel';

const URLS = ['amqp://guest:secret@n1:5771', 'amqp://guest:secret@n2:5772', 'amqp://guest:secret@n3:5773'];

/** Sessions a test can lose at will; `down` URLs refuse to connect. */
function fakeCluster() {
  const opened: string[] = [];
  const closed: string[] = [];
  const down = new Set<string>();
  const sessions = new Map<string, (reason: unknown) => void>();
  const open = async (url: string): Promise<FailoverSession> => {
    opened.push(url);
    if (down.has(url)) throw new Error(`connect ECONNREFUSED ${url}`);
    let lose: (reason: unknown) => void = () => undefined;
    const lost = new Promise<unknown>((resolve) => {
      lose = resolve;
    });
    sessions.set(url, lose);
    return {
      lost,
      close: async () => {
        closed.push(url);
      },
    };
  };
  const lose = (url: string, reason: unknown = new Error('connection closed')) => sessions.get(url)?.(reason);
  return { opened, closed, down, open, lose };
}

const host = (url: string) => url.replace(/.*@/, '');

describe('runFailover', () => {
  it('starts at a random URL and, when that session is lost, consumes on the next one', async () => {
    const cluster = fakeCluster();
    const clock = new FakeClock();
    const events: FailoverEvent[] = [];
    const consumer = await runFailover(URLS, cluster.open, {
      clock,
      random: () => 0.5, // index 1 of 3
      onFailover: (event) => events.push(event),
    });
    expect(cluster.opened.map(host)).toEqual(['n2:5772']);
    expect(consumer.url).toBe('amqp://n2:5772');
    const reason = new Error('node down');
    cluster.lose(URLS[1] as string, reason);
    await clock.advance(0);
    expect(cluster.opened.map(host)).toEqual(['n2:5772', 'n3:5773']);
    expect(cluster.closed.map(host)).toEqual(['n2:5772']);
    expect(events).toEqual([{ from: 'amqp://n2:5772', to: 'amqp://n3:5773', reason, downMs: 0 }]);
    expect(consumer.url).toBe('amqp://n3:5773');
    await consumer.stop();
    expect(cluster.closed.map(host)).toEqual(['n2:5772', 'n3:5773']);
  });

  it('skips a node that refuses, tries the lost one last, and reports each refusal', async () => {
    const cluster = fakeCluster();
    const clock = new FakeClock();
    const refused: string[] = [];
    const consumer = await runFailover(URLS, cluster.open, {
      clock,
      random: () => 0,
      onConnectError: (_error, url) => refused.push(url),
    });
    cluster.down.add(URLS[1] as string);
    cluster.lose(URLS[0] as string);
    await clock.advance(0);
    expect(cluster.opened.map(host)).toEqual(['n1:5771', 'n2:5772', 'n3:5773']);
    expect(refused).toEqual(['amqp://n2:5772']);
    expect(consumer.url).toBe('amqp://n3:5773');
    await consumer.stop();
  });

  it('with every node down, waits a doubling back-off between rounds and measures the time down', async () => {
    const cluster = fakeCluster();
    const clock = new FakeClock();
    const events: FailoverEvent[] = [];
    const consumer = await runFailover(URLS, cluster.open, {
      clock,
      random: () => 0,
      reconnectBackoff: { initialMs: 100, maxMs: 300 },
      onFailover: (event) => events.push(event),
    });
    for (const url of URLS) cluster.down.add(url);
    cluster.lose(URLS[0] as string);
    await clock.advance(0);
    expect(cluster.opened).toHaveLength(4); // the first session, then one round of three
    await clock.advance(100);
    expect(cluster.opened).toHaveLength(7);
    await clock.advance(199);
    expect(cluster.opened, 'the second wait is 200 ms').toHaveLength(7);
    await clock.advance(1);
    expect(cluster.opened).toHaveLength(10);
    cluster.down.delete(URLS[2] as string);
    await clock.advance(300); // capped at 300 ms
    expect(consumer.url).toBe('amqp://n3:5773');
    expect(events).toMatchObject([{ from: 'amqp://n1:5771', to: 'amqp://n3:5773', downMs: 600 }]);
    await consumer.stop();
  });

  it('stop during the back-off ends the loop: nothing is opened afterwards', async () => {
    const cluster = fakeCluster();
    const clock = new FakeClock();
    const consumer = await runFailover(URLS, cluster.open, { clock, random: () => 0 });
    for (const url of URLS) cluster.down.add(url);
    cluster.lose(URLS[0] as string);
    await clock.advance(0);
    const tries = cluster.opened.length;
    await consumer.stop();
    cluster.down.clear();
    await clock.advance(60_000);
    expect(cluster.opened).toHaveLength(tries);
    expect(clock.pending).toBe(0);
    expect(consumer.url).toBe('');
  });

  it('a session lost after stop starts nothing', async () => {
    const cluster = fakeCluster();
    const clock = new FakeClock();
    const consumer = await runFailover(URLS, cluster.open, { clock, random: () => 0 });
    await consumer.stop();
    cluster.lose(URLS[0] as string);
    await clock.advance(1_000);
    expect(cluster.opened).toHaveLength(1);
  });

  it('refuses an empty URL list with a code', async () => {
    await expect(runFailover([], fakeCluster().open)).rejects.toMatchObject({ code: 'no-target' });
  });
});

describe('withHeartbeat', () => {
  it('asks for the heartbeat unless the URL sets one', () => {
    expect(withHeartbeat('amqp://guest:secret@n1:5771', 5)).toBe('amqp://guest:secret@n1:5771?heartbeat=5');
    expect(withHeartbeat('amqp://n1:5771/orders?frameMax=8192', 5)).toBe(
      'amqp://n1:5771/orders?frameMax=8192&heartbeat=5',
    );
    expect(withHeartbeat('amqp://n1:5771?heartbeat=30', 5)).toBe('amqp://n1:5771?heartbeat=30');
  });
});

describe('consumeWithFailover', () => {
  it('gives up on a URL that does not connect within connectTimeoutMs, and consumes on the next', async () => {
    const { channel } = recordingChannel();
    const connection = {
      on: () => connection,
      once: () => connection,
      createConfirmChannel: async () => channel,
      close: async () => undefined,
    };
    const errors: unknown[] = [];
    const consumer = await consumeWithFailover(
      ['amqp://silent:5672', 'amqp://n2:5672'],
      billingPlan(),
      async () => undefined,
      {
        random: () => 0,
        connectTimeoutMs: 50,
        // The first never answers; the second is a connection whose channel records its calls.
        connect: (url) =>
          url.includes('silent') ? new Promise(() => undefined) : Promise.resolve(connection as never),
        onConnectError: (error) => errors.push(error),
      },
    );
    expect(consumer.url).toBe('amqp://n2:5672');
    expect(errors).toMatchObject([{ code: 'connect-timeout' }]);
    await consumer.stop();
  });
});
