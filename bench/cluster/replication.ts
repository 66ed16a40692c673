/**
 * What replication costs: the same retry chain on a single broker and on a three-node cluster,
 * interleaved in every round, for RabbitMQ 3.10.8 and Kafka 4.4.0.
 *
 *   bash scripts/brokers.sh start && bash scripts/brokers.sh cluster start
 *   npx tsx bench/cluster/replication.ts [messages=1000] [rounds=3] [timed=30]
 *   BENCH_ONLY=rabbitmq npx tsx bench/cluster/replication.ts      # one broker only
 *
 * single:  the shared broker of scripts/brokers.sh (one copy: quorum queues of one member;
 *          topics with replication factor 1, acks all).
 * cluster: rabbit-1 of scripts/brokers.sh cluster (quorum queues of three members), and the three
 *          Kafka brokers (replication factor 3, min.insync.replicas 2, acks all).
 * The runtime's Kafka producer is made with KAFKA_PRODUCER_SETTINGS.kafkajs on both.
 *
 * throughput: the failure path. `messages` wait in the main queue (source topic), a handler that
 *   always fails with a 503 turns each into a confirmed (acked) copy in the first wait queue
 *   (retry topic) with a 1 h wait, so nothing comes back. Timed from the first handler call to the
 *   last copy counted in the wait queue (the retry topic's end offsets).
 * lateness: `timed` messages each fail attempts 1 and 2 of a 500 ms / 1 s policy and succeed at 3;
 *   lateness = the time between two handler calls for the message minus the planned wait.
 * Each round runs single then cluster, the order reversed every other round; the ratios
 * (cluster / single) are per round, reported as the median and range over the rounds.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import amqplib from 'amqplib';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import type { KafkaPlan, RetryPlan } from '../../policy';
import { createKafkaRetry, declareKafkaTopology, KAFKA_PRODUCER_SETTINGS } from '../../runtime/kafka';
import { consumeWithRetries, declareTopology, deleteTopology, managementApi } from '../../runtime/rabbitmq';
import { benchPlan } from '../plan';

const MESSAGES = Number(process.argv[2] ?? 1_000);
const ROUNDS = Number(process.argv[3] ?? 3);
const TIMED = Number(process.argv[4] ?? 30);
const ONLY = process.env.BENCH_ONLY;
const PREFETCH = 50;
const BODY = Buffer.from(JSON.stringify({ orderId: 'o-1', amount: 42.5, currency: 'EUR', lines: [1, 2, 3] }));
const LATENESS_DELAYS = ['500ms', '1s'];

type Where = 'single' | 'cluster';
const RABBIT: Record<Where, { url: string; management: string; replicas: number }> = {
  single: {
    url: process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    management: process.env.RABBITMQ_MANAGEMENT_URL ?? 'http://127.0.0.1:15672',
    replicas: 1,
  },
  cluster: { url: 'amqp://guest:guest@127.0.0.1:5771', management: 'http://127.0.0.1:15771', replicas: 3 },
};
const KAFKA: Record<Where, { brokers: string[]; factor: number; minInSync: number }> = {
  single: { brokers: [process.env.KAFKA_BOOTSTRAP ?? '127.0.0.1:9092'], factor: 1, minInSync: 1 },
  cluster: { brokers: ['127.0.0.1:19092', '127.0.0.1:19093', '127.0.0.1:19094'], factor: 3, minInSync: 2 },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const http503 = () => Object.assign(new Error('503'), { name: 'HttpRequestError', status: 503 });
const at = (sorted: readonly number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const sorted = (values: readonly number[]) => [...values].sort((a, b) => a - b);
const median = (values: readonly number[]) => at(sorted(values), 0.5);

function rabbitPlan(where: Where, delays: string[]): RetryPlan {
  const name = `bench-repl-${randomBytes(3).toString('hex')}`;
  const rabbitmq = {
    mode: 'ttl-queues',
    quorumReplicas: RABBIT[where].replicas,
    waitQueueMaxLength: 10_000_000,
  } as const;
  return benchPlan(name, delays, { rabbitmq }, { deadline: '1d' });
}

function kafkaPlan(where: Where, delays: string[]): RetryPlan {
  const name = `bench-repl-${randomBytes(3).toString('hex')}`;
  const { factor, minInSync } = KAFKA[where];
  return benchPlan(
    name,
    delays,
    { kafka: { replicationFactor: factor, minInSyncReplicas: minInSync, acks: 'all' } },
    { deadline: '1d' },
  );
}

// ---- RabbitMQ -----------------------------------------------------------------------------------

async function withRabbit<T>(
  where: Where,
  plan: RetryPlan,
  run: (connection: amqplib.ChannelModel, channel: amqplib.ConfirmChannel) => Promise<T>,
): Promise<T> {
  const management = managementApi({ url: RABBIT[where].management, username: 'guest', password: 'guest' });
  const connection = await amqplib.connect(RABBIT[where].url);
  const channel = await connection.createConfirmChannel();
  await declareTopology(channel, plan, management);
  try {
    return await run(connection, channel);
  } finally {
    const admin = await connection.createConfirmChannel();
    await deleteTopology(admin, plan, management).catch(() => undefined);
    await connection.close().catch(() => undefined);
  }
}

async function rabbitThroughput(where: Where): Promise<number> {
  const plan = rabbitPlan(where, ['1h']);
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  return withRabbit(where, plan, async (connection, channel) => {
    for (let sent = 0; sent < MESSAGES; sent++) {
      if (!channel.sendToQueue(rabbit.mainQueue, BODY, { persistent: true }))
        await new Promise((resolve) => channel.once('drain', resolve));
    }
    await channel.waitForConfirms();
    const consuming = await connection.createConfirmChannel();
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
    while ((await channel.checkQueue(wait)).messageCount < MESSAGES) await sleep(10);
    const seconds = (performance.now() - started) / 1_000;
    await consumer.stop();
    return MESSAGES / seconds;
  });
}

async function rabbitLateness(where: Where): Promise<number[]> {
  const plan = rabbitPlan(where, LATENESS_DELAYS);
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  return withRabbit(where, plan, async (_connection, channel) => {
    const seen = new Map<string, number>();
    const late: number[] = [];
    const consumer = await consumeWithRetries(channel, plan, async (message, { attempt }) => {
      const id = message.content.toString();
      const now = performance.now();
      const before = seen.get(id);
      seen.set(id, now);
      if (attempt > 1 && before !== undefined)
        late.push(now - before - (rabbit.levels[attempt - 2]?.waitMs.max ?? 0));
      if (attempt <= LATENESS_DELAYS.length) throw http503();
    });
    for (let index = 0; index < TIMED; index++) {
      channel.sendToQueue(rabbit.mainQueue, Buffer.from(`m${index}`), { persistent: true });
      await sleep(20);
    }
    const deadline = Date.now() + 120_000;
    while (late.length < TIMED * LATENESS_DELAYS.length && Date.now() < deadline) await sleep(100);
    await consumer.stop();
    return sorted(late);
  });
}

// ---- Kafka --------------------------------------------------------------------------------------

const FAST = { maxWaitTimeInMs: 100, sessionTimeout: 30_000, heartbeatInterval: 1_000 };

async function withKafka<T>(
  where: Where,
  plan: RetryPlan,
  handler: (value: string, attempt: number) => Promise<void>,
  run: (kafka: Kafka, target: KafkaPlan) => Promise<T>,
): Promise<T> {
  const kafka = new Kafka({
    clientId: 'bench-repl',
    brokers: KAFKA[where].brokers,
    logLevel: logLevel.NOTHING,
  });
  const target = plan.targets.kafka as KafkaPlan;
  const admin = kafka.admin();
  const producer = kafka.producer(KAFKA_PRODUCER_SETTINGS.kafkajs);
  await Promise.all([admin.connect(), producer.connect()]);
  await declareKafkaTopology(admin, plan);
  const consumers: Consumer[] = [];
  const retry = createKafkaRetry({
    plan,
    producer,
    fromBeginning: true,
    handler: async (message, { attempt }) => handler(String(message.value), attempt),
  });
  try {
    const main = kafka.consumer({ groupId: target.consumerGroup, ...FAST });
    const retrying = kafka.consumer({ groupId: target.retryConsumerGroup, ...FAST });
    consumers.push(main, retrying);
    await Promise.all(consumers.map((each) => each.connect()));
    await retry.runMain(main);
    await retry.runRetry(retrying);
    return await run(kafka, target);
  } finally {
    await retry.stop().catch(() => undefined);
    await Promise.all(consumers.map((each) => each.disconnect().catch(() => undefined)));
    await admin.deleteTopics({ topics: target.topics.map((topic) => topic.name) }).catch(() => undefined);
    const groups = (await admin.listGroups()).groups.map((group) => group.groupId);
    await admin
      .deleteGroups(groups.filter((id) => id.startsWith(target.consumerGroup)))
      .catch(() => undefined);
    await Promise.all([admin.disconnect(), producer.disconnect()]);
  }
}

async function kafkaThroughput(where: Where): Promise<number> {
  const plan = kafkaPlan(where, ['1h']);
  const target = plan.targets.kafka as KafkaPlan;
  const firstRetry = target.topics.find((topic) => topic.role === 'retry')?.name ?? '';
  let started = 0;
  const handler = async () => {
    if (started === 0) started = performance.now();
    throw http503();
  };
  return withKafka(where, plan, handler, async (kafka, _target) => {
    // The source records are written before the handler's first call is timed: a separate producer.
    const admin = kafka.admin();
    await admin.connect();
    const copies = async () =>
      (await admin.fetchTopicOffsets(firstRetry)).reduce((sum, each) => sum + Number(each.high), 0);
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const batch = 500;
    for (let sent = 0; sent < MESSAGES; sent += batch) {
      await producer.send({
        topic: target.sourceTopic,
        acks: -1,
        messages: Array.from({ length: Math.min(batch, MESSAGES - sent) }, (_, index) => ({
          key: `k-${sent + index}`,
          value: BODY,
        })),
      });
    }
    await producer.disconnect();
    const deadline = Date.now() + 600_000;
    while ((await copies()) < MESSAGES && Date.now() < deadline) await sleep(50);
    const seconds = (performance.now() - started) / 1_000;
    await admin.disconnect();
    return MESSAGES / seconds;
  });
}

async function kafkaLateness(where: Where): Promise<number[]> {
  const plan = kafkaPlan(where, LATENESS_DELAYS);
  const target = plan.targets.kafka as KafkaPlan;
  const waits = target.topics.filter((topic) => topic.role === 'retry').map((topic) => topic.delayMs ?? 0);
  const seen = new Map<string, number>();
  const late: number[] = [];
  const handler = async (id: string, attempt: number) => {
    const now = performance.now();
    const before = seen.get(id);
    seen.set(id, now);
    if (attempt > 1 && before !== undefined) late.push(now - before - (waits[attempt - 2] ?? 0));
    if (attempt <= LATENESS_DELAYS.length) throw http503();
  };
  return withKafka(where, plan, handler, async (kafka) => {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let index = 0; index < TIMED; index++) {
      await producer.send({
        topic: target.sourceTopic,
        acks: -1,
        messages: [{ key: `m${index}`, value: `m${index}` }],
      });
      await sleep(20);
    }
    await producer.disconnect();
    const deadline = Date.now() + 120_000;
    while (late.length < TIMED * LATENESS_DELAYS.length && Date.now() < deadline) await sleep(100);
    return sorted(late);
  });
}

// ---- the rounds ---------------------------------------------------------------------------------

interface Line {
  throughput: number;
  lateness: number[];
}

async function measure(
  broker: 'rabbitmq' | 'kafka',
  throughput: (where: Where) => Promise<number>,
  lateness: (where: Where) => Promise<number[]>,
): Promise<void> {
  const rounds: Array<Record<Where, Line>> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order: Where[] = round % 2 === 0 ? ['single', 'cluster'] : ['cluster', 'single'];
    const result = {} as Record<Where, Line>;
    for (const where of order) {
      const rate = await throughput(where);
      const late = await lateness(where);
      result[where] = { throughput: rate, lateness: late };
      console.log(
        `  ${broker} round ${round + 1} ${where}: ${rate.toFixed(0)} msg/s; lateness (${late.length} waits) median ${at(late, 0.5).toFixed(0)} ms, p95 ${at(late, 0.95).toFixed(0)} ms`,
      );
    }
    rounds.push(result);
  }
  const line = (label: string, pick: (line: Line) => number, unit: string, digits = 0) => {
    const ratios = rounds.map((round) => pick(round.cluster) / pick(round.single));
    console.log(
      `| ${broker} | ${label} | ${median(rounds.map((round) => pick(round.single))).toFixed(digits)} ${unit} | ${median(rounds.map((round) => pick(round.cluster))).toFixed(digits)} ${unit} | **${median(ratios).toFixed(2)}** (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}) |`,
    );
  };
  console.log(
    `\n| broker | measure | single (median) | cluster (median) | cluster / single per round: median (range) |`,
  );
  console.log('| --- | --- | ---: | ---: | --- |');
  line('failure-path throughput', (each) => each.throughput, 'msg/s');
  line('lateness median', (each) => at(each.lateness, 0.5), 'ms');
  line('lateness p95', (each) => at(each.lateness, 0.95), 'ms');
  line('lateness max', (each) => at(each.lateness, 1), 'ms');
}

async function main(): Promise<void> {
  console.log(
    `${MESSAGES} messages (throughput) and ${TIMED} messages × ${LATENESS_DELAYS.length} waits (lateness) × ${ROUNDS} rounds`,
  );
  if (!ONLY || ONLY === 'rabbitmq') await measure('rabbitmq', rabbitThroughput, rabbitLateness);
  if (!ONLY || ONLY === 'kafka') await measure('kafka', kafkaThroughput, kafkaLateness);
}

void main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
