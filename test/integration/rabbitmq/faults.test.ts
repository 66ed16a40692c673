import type { ConfirmChannel } from 'amqplib';
import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import { consumeWithHooks } from '../../../runtime/rabbitmq/consumer';
import {
  body,
  connect,
  drain,
  http503,
  MANAGEMENT_URL,
  management,
  publish,
  rabbitPlan,
  takeWhenThere,
  uniqueName,
  waitFor,
  withTopology,
} from './support';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(
  name: string,
  ...args: Parameters<typeof rabbitPlan> extends [string, ...infer Rest] ? Rest : never
) {
  const plan = rabbitPlan(uniqueName(name), ...args);
  cleanups.push(await withTopology(plan));
  const broker = await connect();
  cleanups.push(() => broker.close());
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  return { plan, rabbit, broker };
}

describe('faults on a real RabbitMQ', () => {
  it('a consumer killed between the confirmed copy and the ack gives a duplicate, never a loss', async () => {
    const { plan, broker } = await setUp('kill');
    const seen: number[] = [];
    // First consumer: the handler fails once; right after the copy is confirmed the connection dies.
    const dying = await connect();
    await consumeWithHooks(
      dying.channel,
      plan,
      async (_message, context) => {
        seen.push(context.attempt);
        throw http503();
      },
      { afterCopyConfirmed: () => dying.close() },
    );
    await publish(broker, plan, { id: 'X' });
    await waitFor(() => seen.length >= 1 || undefined, 10_000, 'first delivery');

    // A new consumer gets both: the unacked original back from the main queue (attempt 1), and the
    // copy from the wait queue a second later (attempt 2).
    const healthy = await connect();
    cleanups.push(() => healthy.close());
    const after: number[] = [];
    await consumeWithRetries(healthy.channel, plan, async (_message, context) => {
      after.push(context.attempt);
    });
    await waitFor(() => (after.length >= 2 ? after : undefined), 15_000, 'original and copy');
    expect(after.sort()).toEqual([1, 2]);
  });

  it('a handler that crashes its process every time is stopped by the quorum delivery limit and dead-lettered', async () => {
    const { plan, rabbit, broker } = await setUp('crash', {}, { deliveryLimit: 2 });
    await publish(broker, plan, { id: 'poison' });
    let deliveries = 0;
    // Each "process" takes the message and dies before deciding anything: the connection drops
    // with the message unacked, as a crash would. On 3.10.8 every such requeue counts.
    // The first three deliveries come at once (30 s is only a liveness bound); the fourth must not
    // come at all, which 3 s of nothing shows, and the dead-letter queue below proves.
    for (let round = 0; round < 4; round++) {
      const victim = await connect();
      const got = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), round < 3 ? 30_000 : 3_000);
        victim.channel.consume(rabbit.mainQueue, (message) => {
          if (!message) return;
          clearTimeout(timer);
          deliveries++;
          resolve(true);
        });
      });
      await victim.close();
      if (!got) break;
    }
    // Delivered deliveryLimit + 1 times, then the broker dead-lettered it to the DLQ.
    expect(deliveries).toBe(3);
    const dead = await takeWhenThere(broker, rabbit.deadLetterQueue, 'the poison message in the DLQ');
    expect(body(dead[0] ?? { content: Buffer.from('{}') }).id).toBe('poison');
    expect(dead[0]?.properties.headers?.['x-death']?.[0]).toMatchObject({
      reason: 'delivery_limit',
      queue: rabbit.mainQueue,
    });
  });

  it.each([
    ['text', 'three'],
    ['negative', -2],
    ['huge', '99999999999999999999'],
  ])(
    'a malformed retry-attempt header (%s) is read as attempt 1, and kept in the dead letter',
    async (_name, raw) => {
      const { plan, rabbit, broker } = await setUp('header', {
        maxAttempts: 1,
        backoff: { type: 'exponential', initial: '1s' },
      });
      const attempts: number[] = [];
      const consumer = await consumeWithRetries(broker.channel, plan, async (_message, context) => {
        attempts.push(context.attempt);
        throw http503();
      });
      cleanups.push(() => consumer.stop());
      await publish(broker, plan, { id: 'odd' }, { headers: { [HEADERS.attempt]: raw } });
      const dead = await takeWhenThere(broker, rabbit.deadLetterQueue, 'the dead letter');
      expect(attempts).toEqual([1]);
      expect(dead[0]?.properties.headers?.[HEADERS.attemptInvalid]).toBe(String(raw));
    },
  );

  it('a valid attempt beyond maxAttempts is dead-lettered on failure (after maxAttempts was lowered)', async () => {
    const { plan, rabbit, broker } = await setUp('lowered');
    const consumer = await consumeWithRetries(broker.channel, plan, async () => {
      throw http503();
    });
    cleanups.push(() => consumer.stop());
    await publish(broker, plan, { id: 'late' }, { headers: { [HEADERS.attempt]: 7 } });
    const dead = await takeWhenThere(broker, rabbit.deadLetterQueue, 'the dead letter');
    expect(dead[0]?.properties.headers).toMatchObject({
      [HEADERS.reason]: 'exhausted',
      [HEADERS.attempt]: 7,
    });
  });

  it('a wait queue at its max-length refuses the copy: the message is kept, retried with back-off, never spun', async () => {
    const { plan, rabbit, broker } = await setUp(
      'full',
      { maxAttempts: 2, backoff: { type: 'list', delays: ['1h'] } },
      { waitQueueMaxLength: 1 },
    );
    const waitQueue = rabbit.levels[0]?.destination ?? '';
    const refusals: number[] = [];
    const consumer = await consumeWithRetries(
      broker.channel,
      plan,
      async () => {
        throw http503();
      },
      { onError: () => refusals.push(Date.now()), refusedPublishBackoff: { initialMs: 500, maxMs: 1_000 } },
    );
    cleanups.push(() => consumer.stop());
    // On 3.10.8, 4.0.5 and 4.3.6 a quorum queue refuses a publish only once it is already over
    // max-length (broker-versions.test.ts): with max-length 1 the second copy is still taken.
    for (const id of ['first', 'second']) {
      await publish(broker, plan, { id });
      await waitFor(
        async () =>
          (await broker.channel.checkQueue(waitQueue)).messageCount >= (id === 'first' ? 1 : 2)
            ? true
            : undefined,
        10_000,
        `${id} copy waiting`,
      );
    }
    await publish(broker, plan, { id: 'third' });
    await waitFor(() => (refusals.length >= 2 ? true : undefined), 10_000, 'two refusals');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // One refusal per back-off step (up to 125 ms, 250 ms, 500 ms, then 1 s at most), not thousands.
    expect(refusals.length).toBeLessThan(8);
    // The third message is held unacked: not ready in the main queue, not in the wait queue.
    expect((await broker.channel.checkQueue(rabbit.mainQueue)).messageCount).toBe(0);
    const drained = (await drain(broker, waitQueue)).map((message) => body(message).id);
    expect(drained.slice(0, 2)).toEqual(['first', 'second']);
    // Once the wait queue has room again, the held copy goes through: perhaps already between the
    // drain's gets above (the first get made room), else soon after.
    const later = drained.slice(2);
    await waitFor(
      async () => {
        later.push(...(await drain(broker, waitQueue)).map((message) => body(message).id));
        return later.length >= 1 ? true : undefined;
      },
      10_000,
      'held copy published',
    );
    expect(later).toEqual(['third']);
  });

  it('a DLQ at its max-length refuses the dead letters: they are held, then arrive with their reason', async () => {
    const { plan, rabbit, broker } = await setUp('dlq-full', {
      maxAttempts: 1,
      backoff: { type: 'exponential', initial: '1s' },
    });
    const dlq = rabbit.deadLetterQueue;
    // The DLQ capped as an operator caps it: an operator policy's max-length, on top of the
    // plan's own reject-publish. Then filled until it refuses (a quorum queue refuses only once
    // it is over max-length, a classic one once it is at it: broker-versions.test.ts).
    const cap = `${dlq}.cap`;
    const operatorPolicy = `${MANAGEMENT_URL}/api/operator-policies/%2F/${encodeURIComponent(cap)}`;
    const authorization = `Basic ${Buffer.from('guest:guest').toString('base64')}`;
    const put = await fetch(operatorPolicy, {
      method: 'PUT',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({
        pattern: `^${dlq.replace(/\./g, '\\.')}$`,
        definition: { 'max-length': 1 },
        priority: 100,
        'apply-to': 'queues',
      }),
    });
    expect(put.ok).toBe(true);
    const lift = () =>
      fetch(operatorPolicy, { method: 'DELETE', headers: { authorization } }).then(() => undefined);
    cleanups.push(lift);
    await waitFor(
      async () => ((await management.getQueue('/', dlq))?.operator_policy === cap ? true : undefined),
      30_000,
      'the cap on the DLQ',
    );
    for (const id of ['filler-1', 'filler-2']) {
      broker.channel.sendToQueue(dlq, Buffer.from(JSON.stringify({ id })), { persistent: true });
      await broker.channel.waitForConfirms().catch(() => undefined);
    }
    const fillers = (await broker.channel.checkQueue(dlq)).messageCount;

    const refusals: unknown[] = [];
    const consumer = await consumeWithRetries(
      broker.channel,
      plan,
      async () => {
        throw http503();
      },
      { onError: (error) => refusals.push(error), refusedPublishBackoff: { initialMs: 200, maxMs: 500 } },
    );
    cleanups.push(() => consumer.stop());
    for (const id of ['d-1', 'd-2', 'd-3']) await publish(broker, plan, { id });
    await waitFor(() => (refusals.length >= 3 ? true : undefined), 20_000, 'three refusals');
    // Held unacked by the consumer: none in the DLQ yet, none back in the main queue.
    expect((await broker.channel.checkQueue(dlq)).messageCount).toBe(fillers);
    expect((await broker.channel.checkQueue(rabbit.mainQueue)).messageCount).toBe(0);

    // Room again, as consumers of the DLQ make it: each drain lets the line's head through, the
    // cap still in place. Every dead letter arrives once, with its reason.
    const arrived: Awaited<ReturnType<typeof drain>> = [];
    const deadLetters = () => arrived.filter((message) => body(message).id.startsWith('d-'));
    await waitFor(
      async () => {
        arrived.push(...(await drain(broker, dlq)));
        return deadLetters().length >= 3 ? true : undefined;
      },
      30_000,
      'the three dead letters',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    arrived.push(...(await drain(broker, dlq)));
    const dead = deadLetters();
    expect(dead.map((message) => body(message).id).sort()).toEqual(['d-1', 'd-2', 'd-3']);
    for (const message of dead) {
      expect(message.properties.headers).toMatchObject({
        [HEADERS.reason]: 'exhausted',
        [HEADERS.attempt]: 1,
      });
      // Our copy, not the broker's own dead-lettering of a rejected message.
      expect(message.properties.headers?.['x-death']).toBeUndefined();
    }
  });

  it('routing one message does not block the others (pipelined confirms)', async () => {
    const { plan, broker } = await setUp('pipeline');
    const slow = await connect();
    cleanups.push(() => slow.close());
    const channel = slow.channel as ConfirmChannel;
    const realPublish = channel.publish.bind(channel);
    let released: (() => void) | undefined;
    // Hold the first retry copy's confirm until the test says so.
    channel.publish = ((exchange, routingKey, content, options, callback) =>
      realPublish(exchange, routingKey, content, options, (error, ok) => {
        if (!released && exchange === plan.targets.rabbitmq?.retryExchange) {
          released = () => callback?.(error, ok);
          return;
        }
        callback?.(error, ok);
      })) as typeof channel.publish;
    const done: string[] = [];
    const consumer = await consumeWithRetries(
      channel,
      plan,
      async (message) => {
        const { id } = body(message);
        if (id === 'failing') throw http503();
        done.push(id);
      },
      { prefetch: 20 },
    );
    cleanups.push(() => consumer.stop());
    await publish(broker, plan, { id: 'failing' });
    await waitFor(() => released, 10_000, 'the held confirm');
    for (let index = 0; index < 10; index++) await publish(broker, plan, { id: `ok-${index}` });
    await waitFor(
      () => (done.length === 10 ? true : undefined),
      10_000,
      'ten healthy messages while one confirm is held',
    );
    released?.();
  });

  it('stopping requeues a message caught in an in-memory wait', async () => {
    const { plan, rabbit, broker } = await setUp('stop', { immediate: { retries: 3, delay: '2s' } });
    const worker = await connect();
    cleanups.push(() => worker.close());
    let calls = 0;
    const consumer = await consumeWithRetries(worker.channel, plan, async () => {
      calls++;
      throw http503();
    });
    await publish(broker, plan, { id: 'interrupted' });
    await waitFor(() => (calls >= 1 ? true : undefined), 10_000, 'first call');
    await consumer.stop();
    await worker.close();
    const back = await drain(broker, rabbit.mainQueue);
    expect(back.map((message) => body(message).id)).toEqual(['interrupted']);
    expect(back[0]?.properties.headers?.[HEADERS.attempt]).toBeUndefined();
  });
});
