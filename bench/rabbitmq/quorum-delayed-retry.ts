/**
 * quorum-delayed-retry against ttl-queues on the same RabbitMQ 4.3 broker (scripts/rabbitmq4.sh).
 *
 *   npx tsx bench/rabbitmq/quorum-delayed-retry.ts [messages=5000] [rounds=3] [timed=30]
 *
 * failure path: consumeWithRetries at prefetch 50 over a full main queue whose handler always
 *   fails. ttl-queues: a confirmed copy to the wait queue, then the ack; quorum-delayed-retry: a
 *   reject, and the broker holds the message. Both wait 1 h, so nothing comes back during a run.
 *   Timed from the first delivery to the last message settled (ttl-queues: every copy in the wait
 *   queue; quorum-delayed-retry: every reject sent, then a round trip on the channel).
 * delay accuracy: `timed` messages that fail on attempts 1 to 3 of a 500 ms / 1 s / 1.5 s policy;
 *   lateness = the time between two deliveries of a message minus the planned wait.
 */
import { randomBytes } from 'node:crypto';
import amqplib, { type ConfirmChannel } from 'amqplib';
import type { RetryPlan } from '../../policy';
import { consumeWithRetries, declareTopology, deleteTopology, managementApi } from '../../runtime/rabbitmq';
import { benchPlan } from '../plan';

const URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5743';
const MANAGEMENT = process.env.RABBITMQ_MANAGEMENT_URL ?? 'http://127.0.0.1:15743';
const MESSAGES = Number(process.argv[2] ?? 5_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const TIMED = Number(process.argv[4] ?? 30);
const PREFETCH = 50;
const BODY = Buffer.from(JSON.stringify({ orderId: 'o-1', amount: 42.5, currency: 'EUR', lines: [1, 2, 3] }));
const management = managementApi({ url: MANAGEMENT, username: 'guest', password: 'guest' });

type Mode = 'ttl-queues' | 'quorum-delayed-retry';

const benchPlanOf = (mode: Mode, delays: string[]) =>
  benchPlan(
    `bench-qdr-${randomBytes(3).toString('hex')}`,
    delays,
    { rabbitmq: { mode, brokerVersion: '4.3.0', waitQueueMaxLength: 10_000_000 } },
    { deadline: '1d' },
  );

function http503(): Error {
  return Object.assign(new Error('503'), { name: 'HttpRequestError', status: 503 });
}

async function withTopology<T>(plan: RetryPlan, run: (channel: ConfirmChannel) => Promise<T>): Promise<T> {
  const connection = await amqplib.connect(URL);
  const channel = await connection.createConfirmChannel();
  await declareTopology(channel, plan, management);
  try {
    return await run(channel);
  } finally {
    const admin = await connection.createConfirmChannel();
    await deleteTopology(admin, plan, management).catch(() => undefined);
    await connection.close().catch(() => undefined);
  }
}

async function failurePath(mode: Mode): Promise<number> {
  const plan = benchPlanOf(mode, ['1h']);
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  return withTopology(plan, async (channel) => {
    for (let sent = 0; sent < MESSAGES; sent++) {
      if (!channel.sendToQueue(rabbit.mainQueue, BODY, { persistent: true }))
        await new Promise((resolve) => channel.once('drain', resolve));
    }
    await channel.waitForConfirms();
    const connection = await amqplib.connect(URL);
    const consuming = await connection.createConfirmChannel();
    let rejects = 0;
    const reject = consuming.reject.bind(consuming);
    consuming.reject = (message, requeue) => {
      rejects++;
      reject(message, requeue);
    };
    let started = 0;
    const consumer = await consumeWithRetries(
      consuming,
      plan,
      async () => {
        if (started === 0) started = performance.now();
        throw http503();
      },
      { prefetch: PREFETCH },
    );
    const wait = rabbit.levels[0]?.destination ?? '';
    for (;;) {
      const done =
        mode === 'ttl-queues'
          ? (await channel.checkQueue(wait)).messageCount >= MESSAGES
          : rejects >= MESSAGES;
      if (done) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (mode === 'quorum-delayed-retry') await consuming.checkQueue(rabbit.mainQueue);
    const seconds = (performance.now() - started) / 1_000;
    await consumer.stop();
    await connection.close();
    return MESSAGES / seconds;
  });
}

async function lateness(mode: Mode): Promise<number[]> {
  const plan = benchPlanOf(mode, ['500ms', '1s', '1500ms']);
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  return withTopology(plan, async (channel) => {
    const seen = new Map<string, number[]>();
    const late: number[] = [];
    const consumer = await consumeWithRetries(channel, plan, async (message, context) => {
      const id = message.content.toString();
      const times = seen.get(id) ?? [];
      times.push(performance.now());
      seen.set(id, times);
      if (context.attempt > 1) {
        const waited = (times[times.length - 1] as number) - (times[times.length - 2] as number);
        late.push(waited - (rabbit.levels[context.attempt - 2]?.waitMs.max ?? 0));
      }
      if (context.attempt < 4) throw http503();
    });
    for (let index = 0; index < TIMED; index++) {
      channel.sendToQueue(rabbit.mainQueue, Buffer.from(`m${index}`), { persistent: true });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    while (late.length < TIMED * 3) await new Promise((resolve) => setTimeout(resolve, 100));
    await consumer.stop();
    return late.sort((a, b) => a - b);
  });
}

const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const median = (values: number[]) =>
  at(
    [...values].sort((a, b) => a - b),
    0.5,
  );

async function main(): Promise<void> {
  const connection = await amqplib.connect(URL);
  const version = connection.connection.serverProperties.version;
  await connection.close();
  console.log(`RabbitMQ ${version}, ${MESSAGES} messages × ${ROUNDS} rounds, prefetch ${PREFETCH}`);
  const rates: Record<Mode, number[]> = { 'ttl-queues': [], 'quorum-delayed-retry': [] };
  for (let round = 1; round <= ROUNDS; round++) {
    for (const mode of ['ttl-queues', 'quorum-delayed-retry'] as const) {
      const rate = await failurePath(mode);
      rates[mode].push(rate);
      console.log(`  round ${round} ${mode}: ${rate.toFixed(0)} msg/s`);
    }
  }
  for (const mode of ['ttl-queues', 'quorum-delayed-retry'] as const) {
    console.log(`failure path, ${mode}: median ${median(rates[mode]).toFixed(0)} msg/s`);
  }
  for (const mode of ['ttl-queues', 'quorum-delayed-retry'] as const) {
    const late = await lateness(mode);
    console.log(
      `lateness, ${mode} (${late.length} waits): min ${at(late, 0).toFixed(0)} ms, median ${at(late, 0.5).toFixed(0)}, p95 ${at(late, 0.95).toFixed(0)}, max ${at(late, 1).toFixed(0)}`,
    );
  }
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
