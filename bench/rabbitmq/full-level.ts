/**
 * Copies refused by a full wait queue: how fast they get through once the level drains.
 *
 *   npx tsx bench/rabbitmq/full-level.ts [copies=40] [maxLength=5] [waitMs=300] [rounds=5]
 *
 * One consumer (prefetch = copies). Every message fails once (HTTP 503) and succeeds on attempt 2.
 * The level is full first: maxLength + 1 messages published into it one at a time (each
 * confirmed), so it is over max-length and refuses. Then all `copies` messages, waiting in the
 * main queue, are consumed: their copies reach the full level together and are held. Timed: from
 * the filling to the moment the broker confirmed the last copy. On 3.10.8 a quorum queue takes
 * one-at-a-time publishes until it is over max-length, so the level takes maxLength + 1 copies
 * per waitMs, and the floor is ceil(copies / (maxLength + 1)) × waitMs.
 */
import { randomBytes } from 'node:crypto';
import amqplib from 'amqplib';
import { declareTopology, deleteTopology, managementApi } from '../../runtime/rabbitmq';
import { consumeWithHooks } from '../../runtime/rabbitmq/consumer';
import { benchPlan } from '../plan';

const URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const COPIES = Number(process.argv[2] ?? 40);
const MAX_LENGTH = Number(process.argv[3] ?? 5);
const WAIT_MS = Number(process.argv[4] ?? 300);
const ROUNDS = Number(process.argv[5] ?? 5);
const management = managementApi({ url: 'http://127.0.0.1:15672', username: 'guest', password: 'guest' });

const benchPlanOf = (name: string) =>
  benchPlan(name, [`${WAIT_MS}ms`], { rabbitmq: { waitQueueMaxLength: MAX_LENGTH } });

async function round(connection: amqplib.ChannelModel): Promise<{ ms: number; refusals: number }> {
  const plan = benchPlanOf(`bench-full-${randomBytes(3).toString('hex')}`);
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  const admin = await connection.createConfirmChannel();
  await declareTopology(admin, plan, management);
  try {
    for (let index = 0; index < COPIES; index++)
      admin.sendToQueue(rabbit.mainQueue, Buffer.from(String(index)), { persistent: true });
    await admin.waitForConfirms();
    const level = rabbit.levels[0]?.destination ?? '';
    const filled = performance.now();
    for (let index = 0; index <= MAX_LENGTH; index++) {
      // Attempt 2 when it comes back: handled once, no copy.
      admin.sendToQueue(level, Buffer.from('fill'), { persistent: true, headers: { 'retry-attempt': 2 } });
      await admin.waitForConfirms();
    }
    const channel = await connection.createConfirmChannel();
    let confirmed = 0;
    let refusals = 0;
    let lastConfirm = 0;
    let secondAttempts = 0;
    let allThrough: () => void = () => {};
    const through = new Promise<void>((resolve) => {
      allThrough = resolve;
    });
    const consumer = await consumeWithHooks(
      channel,
      plan,
      async (message, { attempt }) => {
        if (attempt === 1) throw Object.assign(new Error('503'), { status: 503 });
        if (message.content.toString() !== 'fill' && ++secondAttempts === COPIES) allThrough();
      },
      {
        prefetch: COPIES,
        onError: () => refusals++,
        afterCopyConfirmed: () => {
          lastConfirm = performance.now();
          confirmed++;
        },
      },
    );
    await through;
    await consumer.stop();
    await channel.close();
    if (confirmed !== COPIES) throw new Error(`${confirmed} copies confirmed, expected ${COPIES}`);
    return { ms: lastConfirm - filled, refusals };
  } finally {
    await deleteTopology(admin, plan, management).catch(() => undefined);
    await admin.close();
  }
}

async function main() {
  const connection = await amqplib.connect(URL);
  const floor = Math.ceil(COPIES / (MAX_LENGTH + 1)) * WAIT_MS;
  const results: Array<{ ms: number; refusals: number }> = [];
  try {
    for (let index = 1; index <= ROUNDS; index++) {
      results.push(await round(connection));
      console.error(`round ${index}/${ROUNDS}: ${Math.round(results.at(-1)?.ms ?? 0)} ms`);
    }
  } finally {
    await connection.close();
  }
  const ms = results.map((each) => Math.round(each.ms)).sort((a, b) => a - b);
  const median = ms[Math.floor(ms.length / 2)] ?? 0;
  console.log(`${COPIES} copies, max-length ${MAX_LENGTH}, wait ${WAIT_MS} ms, ${ROUNDS} rounds`);
  console.log(
    `through in (sorted) ${ms.join(' / ')} ms; floor ${floor} ms; median ${(median / floor).toFixed(2)}× the floor`,
  );
  console.log(`refusals per round ${results.map((each) => each.refusals).join(' / ')}`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
