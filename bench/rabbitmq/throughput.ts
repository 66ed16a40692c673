/**
 * RabbitMQ throughput of the consumer wrapper against raw amqplib, on the real local broker.
 *
 *   npx tsx bench/rabbitmq/throughput.ts [messages=20000] [rounds=5]
 *
 * happy path:   raw consume+ack          vs consumeWithRetries whose handler succeeds
 * failure path: raw confirmed publish    vs consumeWithRetries whose handler fails: a copy to the
 *               (50 confirms in flight)     wait queue with a confirm, then the ack
 * Both at prefetch 50. The queues are filled before the clock starts, so only consuming (or
 * routing) is timed. A run ends at the last ack, counted on the channel itself.
 */
import { randomBytes } from 'node:crypto';
import amqplib, { type ConfirmChannel } from 'amqplib';
import { derivePlan, parsePolicy, type RetryPlan } from '../../policy';
import { consumeWithRetries, declareTopology, deleteTopology, managementApi } from '../../runtime/rabbitmq';

const URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const MESSAGES = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const PREFETCH = 50;
const BODY = Buffer.from(JSON.stringify({ orderId: 'o-1', amount: 42.5, currency: 'EUR', lines: [1, 2, 3] }));
const management = managementApi({ url: 'http://127.0.0.1:15672', username: 'guest', password: 'guest' });

function benchPlan(name: string): RetryPlan {
  return derivePlan(
    parsePolicy({
      apiVersion: 'retry-topology/v1',
      kind: 'RetryPolicy',
      metadata: { name },
      spec: {
        consumer: 'bench',
        maxAttempts: 2,
        // Copies stay in the wait queue for the whole run.
        backoff: { type: 'list', delays: ['1h'] },
        jitter: 'none',
        classify: { presets: ['http-transient'] },
        idempotency: { idempotent: true },
        targets: {
          rabbitmq: {
            exchange: `${name}.in`,
            declareExchange: true,
            routingKey: 'k',
            brokerVersion: '3.10.8',
            waitQueueMaxLength: 10_000_000,
          },
        },
      },
    }),
  );
}

async function fill(channel: ConfirmChannel, queue: string): Promise<void> {
  for (let sent = 0; sent < MESSAGES; sent++) {
    if (!channel.sendToQueue(queue, BODY, { persistent: true }))
      await new Promise((resolve) => channel.once('drain', resolve));
  }
  await channel.waitForConfirms();
}

/**
 * Counts settled deliveries on a fresh channel (delivery tags start at 1); an ack with
 * `allUpTo` settles every tag up to it. Resolves with the elapsed ms at the MESSAGES-th.
 */
function countAcks(channel: ConfirmChannel): { done: Promise<number>; restore(): void } {
  const original = channel.ack.bind(channel);
  const started = performance.now();
  // Settled = every tag up to the highest `allUpTo` ack, plus single acks above it.
  let upTo = 0;
  const above = new Set<number>();
  let finish: (ms: number) => void = () => {};
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  channel.ack = (message, allUpTo) => {
    original(message, allUpTo);
    const tag = message.fields.deliveryTag;
    if (allUpTo && tag > upTo) {
      upTo = tag;
      for (const each of above) if (each <= upTo) above.delete(each);
    } else if (tag > upTo) {
      above.add(tag);
    }
    if (upTo + above.size === MESSAGES) finish(performance.now() - started);
  };
  return {
    done,
    restore: () => {
      channel.ack = original;
    },
  };
}

async function rawConsume(channel: ConfirmChannel, queue: string): Promise<number> {
  await channel.prefetch(PREFETCH);
  const acks = countAcks(channel);
  const { consumerTag } = await channel.consume(queue, (message) => {
    if (message) channel.ack(message);
  });
  const ms = await acks.done;
  acks.restore();
  await channel.close();
  void consumerTag;
  return ms;
}

async function wrapperConsume(channel: ConfirmChannel, plan: RetryPlan, fail: boolean): Promise<number> {
  const acks = countAcks(channel);
  const consumer = await consumeWithRetries(
    channel,
    plan,
    async () => {
      if (fail) throw Object.assign(new Error('503 Service Unavailable'), { status: 503 });
    },
    { prefetch: PREFETCH },
  );
  const ms = await acks.done;
  acks.restore();
  await consumer.stop();
  await channel.close();
  return ms;
}

/** The same work by hand: consume, a confirmed copy to the wait queue, then a plain ack. */
async function rawRoute(channel: ConfirmChannel, queue: string, waitQueue: string): Promise<number> {
  await channel.prefetch(PREFETCH);
  const acks = countAcks(channel);
  await channel.consume(queue, (message) => {
    if (!message) return;
    channel.publish('', waitQueue, message.content, { persistent: true, mandatory: true }, () =>
      channel.ack(message),
    );
  });
  const ms = await acks.done;
  acks.restore();
  await channel.close();
  return ms;
}

async function rawConfirmedPublish(channel: ConfirmChannel, queue: string): Promise<number> {
  const started = performance.now();
  let inFlight = 0;
  let sent = 0;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      while (inFlight < PREFETCH && sent < MESSAGES) {
        inFlight++;
        sent++;
        channel.publish('', queue, BODY, { persistent: true, mandatory: true }, (error) => {
          if (error) return reject(error);
          inFlight--;
          if (sent === MESSAGES && inFlight === 0) resolve();
          else pump();
        });
      }
    };
    pump();
  });
  const ms = performance.now() - started;
  await channel.close();
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function main() {
  const connection = await amqplib.connect(URL);
  const channel = await connection.createConfirmChannel();
  const plan = benchPlan(`bench-${randomBytes(3).toString('hex')}`);
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  await declareTopology(channel, plan, management);
  const waitQueue = rabbit.levels[0]?.destination ?? '';
  const sink = `${plan.policy}.sink`;
  await channel.assertQueue(sink, { durable: true, arguments: { 'x-queue-type': 'quorum' } });

  const results = {
    rawConsume: [] as number[],
    wrapperHappy: [] as number[],
    rawPublish: [] as number[],
    rawRoute: [] as number[],
    wrapperFailure: [] as number[],
  };
  // Every measurement gets a channel of its own, so delivery tags start at 1.
  const fresh = () => connection.createConfirmChannel();
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      // BENCH_ONLY=failure times just the wrapper's failure path (for profiling).
      if (process.env.BENCH_ONLY === 'failure') {
        await fill(channel, rabbit.mainQueue);
        results.wrapperFailure.push(await wrapperConsume(await fresh(), plan, true));
        await channel.purgeQueue(waitQueue);
        continue;
      }
      await fill(channel, rabbit.mainQueue);
      results.rawConsume.push(await rawConsume(await fresh(), rabbit.mainQueue));
      await fill(channel, rabbit.mainQueue);
      results.wrapperHappy.push(await wrapperConsume(await fresh(), plan, false));
      results.rawPublish.push(await rawConfirmedPublish(await fresh(), sink));
      await channel.purgeQueue(sink);
      await fill(channel, rabbit.mainQueue);
      results.rawRoute.push(await rawRoute(await fresh(), rabbit.mainQueue, waitQueue));
      await channel.purgeQueue(waitQueue);
      await fill(channel, rabbit.mainQueue);
      results.wrapperFailure.push(await wrapperConsume(await fresh(), plan, true));
      await channel.purgeQueue(waitQueue);
      console.error(`round ${round}/${ROUNDS} done`);
    }
  } finally {
    await channel.deleteQueue(sink);
    await deleteTopology(channel, plan, management);
    await connection.close();
  }

  const rate = (ms: number[]) => Math.round(MESSAGES / (median(ms) / 1000));
  const happy = rate(results.wrapperHappy) / rate(results.rawConsume);
  const failure = rate(results.wrapperFailure) / rate(results.rawPublish);
  console.log(`messages per run: ${MESSAGES}, rounds: ${ROUNDS}, prefetch ${PREFETCH}, medians`);
  console.log(`happy path   raw consume+ack        ${rate(results.rawConsume)} msg/s`);
  console.log(
    `             consumeWithRetries     ${rate(results.wrapperHappy)} msg/s   ratio ${happy.toFixed(2)} (target >= 0.9)`,
  );
  console.log(`failure path raw confirmed publish  ${rate(results.rawPublish)} msg/s`);
  console.log(
    `             same work by hand      ${rate(results.rawRoute)} msg/s   ratio ${(rate(results.rawRoute) / rate(results.rawPublish)).toFixed(2)}`,
  );
  console.log(
    `             consumeWithRetries     ${rate(results.wrapperFailure)} msg/s   ratio ${failure.toFixed(2)} (target >= 0.5)`,
  );
  console.log(JSON.stringify({ messages: MESSAGES, rounds: ROUNDS, ms: results }));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
