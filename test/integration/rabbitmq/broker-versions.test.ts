import type { ConsumeMessage } from 'amqplib';
import { afterAll, describe, expect, it } from 'vitest';
import { type Broker, brokerVersion, connect, uniqueName, waitFor } from './support';

/**
 * What changed between RabbitMQ 3.10, 4.0 and 4.3 that the plan and the runtime rely on, checked
 * on the broker under test with plain quorum queues. Each test states the answer for every
 * version and checks the one it runs on.
 */
describe('quorum queue behaviour by version', async () => {
  const broker = await brokerVersion();
  const is43 = broker.at([4, 3]);
  const is40 = broker.at([4, 0]);
  const clients: Broker[] = [];
  const queues: string[] = [];
  afterAll(async () => {
    const admin = await connect();
    for (const queue of queues) await admin.channel.deleteQueue(queue).catch(() => undefined);
    await admin.close();
    for (const client of clients) await client.close();
  });

  async function quorumQueue(args: Record<string, unknown> = {}): Promise<{ client: Broker; queue: string }> {
    const client = await connect();
    clients.push(client);
    const queue = uniqueName('versions');
    queues.push(queue);
    await client.channel.assertQueue(queue, {
      durable: true,
      arguments: { 'x-queue-type': 'quorum', ...args },
    });
    return { client, queue };
  }

  async function send(client: Broker, queue: string, headers: Record<string, unknown> = {}): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      client.channel.sendToQueue(queue, Buffer.from('{}'), { headers }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
  }

  /** Consumes, settling delivery n with settle(n); returns the headers of each delivery. */
  async function deliveries(
    client: Broker,
    queue: string,
    settle: (n: number, message: ConsumeMessage) => void,
    until: (seen: ConsumeMessage[]) => boolean,
  ): Promise<ConsumeMessage[]> {
    const seen: ConsumeMessage[] = [];
    const { consumerTag } = await client.channel.consume(queue, (message) => {
      if (!message) return;
      seen.push(message);
      settle(seen.length, message);
    });
    await waitFor(() => until(seen) || undefined, 10_000, `deliveries from ${queue}`);
    await client.channel.cancel(consumerTag);
    return seen;
  }

  it('reject(requeue) counts in x-delivery-count everywhere; nack(requeue) too before 4.3, only in x-acquired-count on 4.3', async () => {
    const { client, queue } = await quorumQueue();
    await send(client, queue);
    const seen = await deliveries(
      client,
      queue,
      (n, message) => {
        if (n === 1) client.channel.reject(message, true);
        else if (n === 2) client.channel.nack(message, false, true);
        else client.channel.ack(message);
      },
      (all) => all.length >= 3,
    );
    const counts = seen.map((message) => [
      message.properties.headers?.['x-delivery-count'],
      message.properties.headers?.['x-acquired-count'],
    ]);
    expect(counts).toEqual(
      is43
        ? [
            [undefined, undefined],
            [1, 1],
            [1, 2],
          ]
        : [
            [undefined, undefined],
            [1, undefined],
            [2, undefined],
          ],
    );
  });

  it('a publisher’s own x-delivery-count and x-death reach the consumer unchanged on the first delivery', async () => {
    const { client, queue } = await quorumQueue();
    const death = [
      { count: 5, reason: 'rejected', queue: 'elsewhere', exchange: '', 'routing-keys': ['elsewhere'] },
    ];
    await send(client, queue, { 'x-delivery-count': 99, 'x-death': death });
    const [first] = await deliveries(
      client,
      queue,
      (_n, message) => client.channel.ack(message),
      (all) => all.length >= 1,
    );
    expect(first?.fields.redelivered).toBe(false);
    expect(first?.properties.headers).toMatchObject({ 'x-delivery-count': 99, 'x-death': death });
  });

  it('max-length is soft on every version: with max-length 1 and reject-publish the second message is taken, the third refused', async () => {
    const { client, queue } = await quorumQueue({ 'x-max-length': 1, 'x-overflow': 'reject-publish' });
    const outcomes: string[] = [];
    for (let index = 0; index < 3; index++) {
      outcomes.push(
        await send(client, queue).then(
          () => 'taken',
          () => 'refused',
        ),
      );
    }
    expect(outcomes).toEqual(['taken', 'taken', 'refused']);
    expect((await client.channel.checkQueue(queue)).messageCount).toBe(2);
  });

  it('with no delivery limit of its own, a quorum queue drops a message after 20 failed deliveries from 4.0 on, and never on 3.10', async () => {
    const { client, queue } = await quorumQueue();
    await send(client, queue);
    let count = 0;
    const { consumerTag } = await client.channel.consume(queue, (message) => {
      if (!message) return;
      count++;
      // 3.10 would go on for ever: stop it after 30.
      if (count >= 30) client.channel.ack(message);
      else client.channel.reject(message, true);
    });
    // Either the broker stopped delivering (4.x) or the 30th delivery was acked (3.10): at least
    // that many deliveries, then none for 2 s (a redelivery loop goes on within milliseconds). A
    // stall on a loaded machine can only make it wait longer, never stop it early.
    let last = -1;
    await waitFor(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        const settled = count === last && count >= (is40 ? 21 : 30);
        last = count;
        return settled || undefined;
      },
      60_000,
      'deliveries to stop',
    );
    await client.channel.cancel(consumerTag);
    // The default limit is 20: the 21st failed delivery goes to the dead-letter exchange (none
    // here, so the message is dropped). The plan always sets delivery-limit itself.
    expect(count).toBe(is40 ? 21 : 30);
    expect((await client.channel.checkQueue(queue)).messageCount).toBe(0);
  });
});
