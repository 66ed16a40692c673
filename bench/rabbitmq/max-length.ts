/**
 * How hard a quorum queue's max-length with reject-publish is: the figures docs/rabbitmq.md quotes.
 *
 *   npx tsx bench/rabbitmq/max-length.ts [rounds=10]
 *
 * For each case a fresh quorum queue with only `x-queue-type` as argument and a policy setting
 * max-length and overflow reject-publish (how the plan sets up a wait queue), then confirmed
 * publishes: one at a time (each waits for its confirm), or a burst of N sent at once. Counts the
 * publishes the broker confirmed (ack) and refused (nack), and the queue's length after.
 */
import { randomBytes } from 'node:crypto';
import amqplib, { type ConfirmChannel } from 'amqplib';
import { managementApi } from '../../runtime/rabbitmq';

const URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const management = managementApi({
  url: process.env.RABBITMQ_MANAGEMENT_URL ?? 'http://127.0.0.1:15672',
  username: 'guest',
  password: 'guest',
});
const ROUNDS = Number(process.argv[2] ?? 10);

function publish(channel: ConfirmChannel, queue: string): Promise<boolean> {
  return new Promise((resolve) =>
    channel.sendToQueue(queue, Buffer.from('x'), { persistent: true }, (error) => resolve(!error)),
  );
}

async function trial(
  channel: ConfirmChannel,
  maxLength: number,
  how: 'one at a time' | 'burst',
  count: number,
): Promise<{ accepted: number; length: number }> {
  const queue = `bench-maxlen-${randomBytes(3).toString('hex')}`;
  await management.putPolicy('/', {
    name: queue,
    pattern: `^${queue}$`,
    applyTo: 'queues',
    priority: 10,
    definition: { 'max-length': maxLength, overflow: 'reject-publish' },
  });
  await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  // The policy reaches the queue's leader asynchronously; give it a moment, as a deploy would.
  await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    let accepted = 0;
    if (how === 'one at a time') {
      for (let index = 0; index < count; index++) if (await publish(channel, queue)) accepted++;
    } else {
      const results = await Promise.all(Array.from({ length: count }, () => publish(channel, queue)));
      accepted = results.filter(Boolean).length;
    }
    const { messageCount } = await channel.checkQueue(queue);
    return { accepted, length: messageCount };
  } finally {
    await channel.deleteQueue(queue);
    await management.deletePolicy('/', queue);
  }
}

async function main() {
  const connection = await amqplib.connect(URL);
  const channel = await connection.createConfirmChannel();
  const overview = (await fetch(
    `${process.env.RABBITMQ_MANAGEMENT_URL ?? 'http://127.0.0.1:15672'}/api/overview`,
    { headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` } },
  ).then((response) => response.json())) as { rabbitmq_version: string };
  console.log(`RabbitMQ ${overview.rabbitmq_version}, ${ROUNDS} rounds per case`);
  const cases: Array<[number, 'one at a time' | 'burst', number]> = [
    [1, 'one at a time', 5],
    [5, 'one at a time', 20],
    [5, 'burst', 50],
    [5, 'burst', 200],
    [100, 'burst', 500],
  ];
  try {
    for (const [maxLength, how, count] of cases) {
      const accepted: number[] = [];
      for (let round = 0; round < ROUNDS; round++)
        accepted.push((await trial(channel, maxLength, how, count)).accepted);
      accepted.sort((a, b) => a - b);
      console.log(
        `max-length ${maxLength}, ${count} publishes ${how}: accepted ${accepted[0]}–${accepted.at(-1)} (median ${accepted[Math.floor(accepted.length / 2)]})`,
      );
    }
  } finally {
    await connection.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
