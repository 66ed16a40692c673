import type { ConsumeMessage } from 'amqplib';
import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import {
  connect,
  http503,
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

/** Three attempts, two short waits: every hop (two retry copies, the dead letter) in about a second. */
async function setUp(name: string) {
  const plan = rabbitPlan(uniqueName(name), {
    maxAttempts: 3,
    backoff: { type: 'list', delays: ['200ms', '300ms'] },
  });
  cleanups.push(await withTopology(plan));
  const broker = await connect();
  cleanups.push(() => broker.close());
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  const deliveries: ConsumeMessage[] = [];
  const consumer = await consumeWithRetries(broker.channel, plan, async (message) => {
    deliveries.push(message);
    throw http503();
  });
  cleanups.push(() => consumer.stop());
  return { plan, rabbit, broker, deliveries };
}

describe('headers on every hop, on a real RabbitMQ', () => {
  it('application headers, x- ones and trace context included, survive both retry copies and the dead letter', async () => {
    const { plan, rabbit, broker, deliveries } = await setUp('app-headers');
    const application = {
      'x-request-id': 'req-7',
      'x-correlation-id': 'corr-7',
      'x-tenant': 'acme',
      traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
      tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7',
      tenant: 'acme',
    };
    await publish(
      broker,
      plan,
      { id: 'traced' },
      { headers: application, correlationId: 'c-7', type: 'order' },
    );
    const dead = await takeWhenThere(broker, rabbit.deadLetterQueue, 'the dead letter');
    expect(deliveries.map((message) => message.properties.headers?.[HEADERS.attempt] ?? 1)).toEqual([
      1, 2, 3,
    ]);
    for (const message of [...deliveries, ...dead]) {
      expect(message.properties.headers).toMatchObject(application);
      expect(message.properties).toMatchObject({ correlationId: 'c-7', type: 'order' });
    }
    // The broker's own history is not carried: attempt 3 has only the x-death its wait queue wrote
    // (a kept one would have grown to two entries), and the dead letter has none.
    const third = deliveries[2]?.properties.headers ?? {};
    expect(third['x-death']).toHaveLength(1);
    expect(third['x-death']?.[0]).toMatchObject({ count: 1, queue: rabbit.levels[1]?.destination });
    expect(third['x-first-death-queue']).toBe(rabbit.levels[1]?.destination);
    const deadHeaders = dead[0]?.properties.headers ?? {};
    const history = Object.keys(deadHeaders).filter((key) => /^x-(death|first-death-|last-death-)/.test(key));
    expect(history).toEqual([]);
    expect(deadHeaders[HEADERS.reason]).toBe('exhausted');
  });

  it('a malformed retry-attempt is carried on every retry copy and ends in the dead letter', async () => {
    const { plan, rabbit, broker, deliveries } = await setUp('bad-attempt');
    await publish(broker, plan, { id: 'odd' }, { headers: { [HEADERS.attempt]: 'abc' } });
    const dead = await takeWhenThere(broker, rabbit.deadLetterQueue, 'the dead letter');
    await waitFor(() => (deliveries.length === 3 ? true : undefined), 5_000, 'three deliveries');
    // Read as attempt 1; the copies count on from there, each still saying what the value was.
    expect(deliveries.map((message) => message.properties.headers?.[HEADERS.attempt])).toEqual(['abc', 2, 3]);
    expect(
      deliveries.slice(1).map((message) => message.properties.headers?.[HEADERS.attemptInvalid]),
    ).toEqual(['abc', 'abc']);
    expect(dead[0]?.properties.headers).toMatchObject({
      [HEADERS.attempt]: 3,
      [HEADERS.attemptInvalid]: 'abc',
      [HEADERS.reason]: 'exhausted',
    });
  });
});
