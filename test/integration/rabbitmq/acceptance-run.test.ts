import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { consumeWithRetries, type RabbitConsumer } from '../../../runtime/rabbitmq';
import {
  type Broker,
  body,
  connect,
  drain,
  http503,
  InvalidCurrencyError,
  publish,
  rabbitPlan,
  takeWhenThere,
  uniqueName,
  waitFor,
  withTopology,
} from './support';

/**
 * The billing acceptance run on a real RabbitMQ: A fails twice with a 503 and succeeds on attempt 3 at about
 * 3 s; B has an invalid currency and is dead-lettered at once; C always gets a 503 and is
 * dead-lettered after attempt 4 at about 7 s. A healthy message during the waits goes through at
 * once. Lower bounds are asserted (a TTL never fires early); how late things came is printed, not
 * asserted (a loaded machine moves it by seconds; the waitFor below is the liveness bound).
 */
describe('the acceptance run on RabbitMQ (ttl-queues, 1 s / 2 s / 4 s)', () => {
  const plan = rabbitPlan(uniqueName('accept'));
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  const log: Array<{ id: string; attempt: number; at: number; outcome: string }> = [];
  let broker: Broker;
  let consumer: RabbitConsumer;
  let removeTopology: () => Promise<void>;
  let start = 0;
  let healthyPublishedAt = 0;

  beforeAll(async () => {
    removeTopology = await withTopology(plan);
    broker = await connect();
    consumer = await consumeWithRetries(broker.channel, plan, async (message, context) => {
      const { id } = body(message);
      const entry = { id, attempt: context.attempt, at: Date.now() - start, outcome: 'ok' };
      log.push(entry);
      if (id === 'B') {
        entry.outcome = 'InvalidCurrencyError';
        throw new InvalidCurrencyError('Unsupported currency XXX');
      }
      if (id === 'C' || (id === 'A' && context.attempt < 3)) {
        entry.outcome = '503';
        throw http503();
      }
    });
    start = Date.now();
    for (const id of ['A', 'B', 'C']) await publish(broker, plan, { id }, { messageId: `msg-${id}` });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    healthyPublishedAt = Date.now() - start;
    await publish(broker, plan, { id: 'healthy' }, { messageId: 'msg-healthy' });
    await waitFor(
      () => log.find((entry) => entry.id === 'C' && entry.attempt === 4),
      30_000,
      'C on attempt 4',
    );
  }, 60_000);

  afterAll(async () => {
    await consumer?.stop();
    await broker?.close();
    await removeTopology?.();
  });

  it('processes A on attempt 3, at about 3 s', () => {
    const a = log.filter((entry) => entry.id === 'A');
    expect(a.map((entry) => [entry.attempt, entry.outcome])).toEqual([
      [1, '503'],
      [2, '503'],
      [3, 'ok'],
    ]);
    expect(a[2]?.at).toBeGreaterThanOrEqual(3_000);
    console.log(`acceptance run (RabbitMQ): A on attempt 3 at ${a[2]?.at} ms (planned 3000)`);
  });

  it('sends B to the dead-letter queue at once, with its reason, after one attempt', async () => {
    expect(log.filter((entry) => entry.id === 'B').map((entry) => entry.attempt)).toEqual([1]);
  });

  it('sends C to the dead-letter queue after attempt 4, at about 7 s', () => {
    const c = log.filter((entry) => entry.id === 'C');
    expect(c.map((entry) => entry.attempt)).toEqual([1, 2, 3, 4]);
    expect(c[3]?.at).toBeGreaterThanOrEqual(7_000);
    console.log(`acceptance run (RabbitMQ): C on attempt 4 at ${c[3]?.at} ms (planned 7000)`);
  });

  it('processes a healthy message once, on attempt 1, while others wait', () => {
    const healthy = log.filter((entry) => entry.id === 'healthy');
    expect(healthy.map((entry) => [entry.attempt, entry.outcome])).toEqual([[1, 'ok']]);
    // Measured, not asserted: the main queue holds no waiting message, so nothing is ahead of it.
    console.log(
      `acceptance run (RabbitMQ): healthy handled ${(healthy[0]?.at ?? 0) - healthyPublishedAt} ms after its publish`,
    );
  });

  it('leaves exactly B and C in the dead-letter queue, each with its reason and attempt', async () => {
    const dead = await takeWhenThere(broker, rabbit.deadLetterQueue, 'B and C dead-lettered', 2);
    const byId = Object.fromEntries(dead.map((message) => [body(message).id, message.properties]));
    expect(Object.keys(byId).sort()).toEqual(['B', 'C']);
    expect(byId.B?.headers).toMatchObject({
      [HEADERS.reason]: 'permanent',
      [HEADERS.errorName]: 'InvalidCurrencyError',
      [HEADERS.errorMessage]: 'Unsupported currency XXX',
      [HEADERS.attempt]: 1,
      [HEADERS.source]: rabbit.mainQueue,
    });
    expect(byId.C?.headers).toMatchObject({
      [HEADERS.reason]: 'exhausted',
      [HEADERS.errorName]: 'HttpRequestError',
      [HEADERS.attempt]: 4,
    });
    // The first failure time travels with the copies: C first failed right at the start.
    expect(
      byId.C?.headers?.[HEADERS.deadLetteredAt] - byId.C?.headers?.[HEADERS.firstFailureAt],
    ).toBeGreaterThanOrEqual(7_000);
    expect(byId.C?.messageId).toBe('msg-C');
  });

  it('leaves nothing behind in the main and wait queues', async () => {
    for (const queue of rabbit.queues.filter((each) => each.role !== 'dead-letter')) {
      expect(await drain(broker, queue.name)).toEqual([]);
    }
  });
});
