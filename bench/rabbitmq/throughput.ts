/**
 * RabbitMQ throughput of the consumer wrapper against raw amqplib, on the real local broker.
 *
 *   npx tsx bench/rabbitmq/throughput.ts [messages=20000] [rounds=5]
 *
 * happy path:   raw consume+ack          vs consumeWithRetries whose handler succeeds
 * failure path: the hand-written retry loop (consume, call the same failing handler, a confirmed
 *               copy with the attempt header to the wait queue, ack) vs consumeWithRetries whose
 *               handler fails the same way; also the bare loop without a handler call (consume,
 *               confirmed copy, ack) and a raw confirmed publish, for scale.
 * All at prefetch 50. The queues are filled before the clock starts, so only consuming (or
 * routing) is timed. A run ends at the last ack, counted on the channel itself. Every round runs
 * every line once, in an order reversed every other round, and each line also records the Node
 * CPU it used per message (process.cpuUsage over the run).
 */
import { randomBytes } from 'node:crypto';
import amqplib, { type ConfirmChannel } from 'amqplib';
import type { RetryPlan } from '../../policy';
import { consumeWithRetries, declareTopology, deleteTopology, managementApi } from '../../runtime/rabbitmq';
import { benchPlan } from '../plan';

const URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const MESSAGES = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);
const PREFETCH = 50;
const BODY = Buffer.from(JSON.stringify({ orderId: 'o-1', amount: 42.5, currency: 'EUR', lines: [1, 2, 3] }));
const management = managementApi({ url: 'http://127.0.0.1:15672', username: 'guest', password: 'guest' });

// Copies stay in the wait queue for the whole run.
const benchPlanOf = (name: string) =>
  benchPlan(name, ['1h'], { rabbitmq: { waitQueueMaxLength: 10_000_000 } });

async function fill(channel: ConfirmChannel, queue: string, count = MESSAGES): Promise<void> {
  for (let sent = 0; sent < count; sent++) {
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
    if (upTo + above.size >= MESSAGES) finish(performance.now() - started);
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

/** The handler every failure-path line calls: what a payment client throws for an HTTP 503. */
async function failingHandler(): Promise<void> {
  throw Object.assign(new Error('503 Service Unavailable'), { status: 503 });
}

async function wrapperConsume(channel: ConfirmChannel, plan: RetryPlan, fail: boolean): Promise<number> {
  const acks = countAcks(channel);
  const consumer = await consumeWithRetries(channel, plan, fail ? failingHandler : async () => {}, {
    prefetch: PREFETCH,
  });
  const ms = await acks.done;
  acks.restore();
  await consumer.stop();
  await channel.close();
  return ms;
}

/**
 * A retry loop written by hand: consume, call the handler, and when it throws, a confirmed copy
 * (body, properties and headers kept, the attempt header incremented) through the same retry
 * exchange to the same wait queue, then the ack. What an application without the runtime would
 * write on the same topology, minus classification, dead letters and return detection.
 */
async function handRetry(
  channel: ConfirmChannel,
  queue: string,
  exchange: string,
  waitQueue: string,
): Promise<number> {
  await channel.prefetch(PREFETCH);
  const acks = countAcks(channel);
  await channel.consume(queue, async (message) => {
    if (!message) return;
    try {
      await failingHandler();
      channel.ack(message);
    } catch {
      const headers = message.properties.headers ?? {};
      const attempt = Number(headers['retry-attempt'] ?? 1);
      channel.publish(
        exchange,
        waitQueue,
        message.content,
        {
          ...message.properties,
          persistent: true,
          mandatory: true,
          headers: { ...headers, 'retry-attempt': attempt + 1 },
        },
        () => channel.ack(message),
      );
    }
  });
  const ms = await acks.done;
  acks.restore();
  await channel.close();
  return ms;
}

/** The bare loop: consume, a confirmed copy to the wait queue, then a plain ack; no handler. */
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

type Line =
  | 'rawConsume'
  | 'wrapperHappy'
  | 'wrapperHappyUnbatched'
  | 'rawPublish'
  | 'rawRoute'
  | 'handRetry'
  | 'wrapperFailure';
interface Run {
  ms: number;
  /** Node CPU (user + system) per message, in microseconds. */
  cpuUs: number;
}

async function main() {
  const connection = await amqplib.connect(URL);
  const channel = await connection.createConfirmChannel();
  const plan = benchPlanOf(`bench-${randomBytes(3).toString('hex')}`);
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  await declareTopology(channel, plan, management);
  const waitQueue = rabbit.levels[0]?.destination ?? '';
  const sink = `${plan.policy}.sink`;
  await channel.assertQueue(sink, { durable: true, arguments: { 'x-queue-type': 'quorum' } });

  // Every measurement gets a channel of its own, so delivery tags start at 1.
  // Each line starts from empty queues, whatever the line before left behind.
  const filled = async (count = MESSAGES) => {
    for (const queue of [rabbit.mainQueue, waitQueue]) {
      const { messageCount } = await channel.purgeQueue(queue);
      if (messageCount > 0) console.error(`  (${messageCount} messages left in ${queue} by the line before)`);
    }
    await fill(channel, rabbit.mainQueue, count);
  };
  const purge = (queue: string) => async () => {
    const { messageCount } = await channel.purgeQueue(queue);
    if (queue === waitQueue && messageCount !== MESSAGES)
      console.error(`  (${messageCount} copies in the wait queue, expected ${MESSAGES})`);
  };
  // Each line: what to set up (untimed), the timed run on a fresh channel, and what to clean up.
  const lines: Record<
    Line,
    {
      before?: () => Promise<void>;
      run: (fresh: ConfirmChannel) => Promise<number>;
      after?: () => Promise<void>;
    }
  > = {
    rawConsume: { before: filled, run: (fresh) => rawConsume(fresh, rabbit.mainQueue) },
    wrapperHappy: { before: () => filled(), run: (fresh) => wrapperConsume(fresh, plan, false) },
    // The same on a channel that delivered once before (a basic.get): the ack ledger sees a tag it
    // does not own, so every ack goes alone. What the batching is worth.
    wrapperHappyUnbatched: {
      before: () => filled(MESSAGES + 1),
      run: async (fresh) => {
        await fresh.get(rabbit.mainQueue, { noAck: true });
        return wrapperConsume(fresh, plan, false);
      },
    },
    rawPublish: { run: (fresh) => rawConfirmedPublish(fresh, sink), after: purge(sink) },
    rawRoute: {
      before: filled,
      run: (fresh) => rawRoute(fresh, rabbit.mainQueue, waitQueue),
      after: purge(waitQueue),
    },
    handRetry: {
      before: filled,
      run: (fresh) => handRetry(fresh, rabbit.mainQueue, rabbit.retryExchange, waitQueue),
      after: purge(waitQueue),
    },
    wrapperFailure: {
      before: filled,
      run: (fresh) => wrapperConsume(fresh, plan, true),
      after: purge(waitQueue),
    },
  };
  // BENCH_ONLY=handRetry,wrapperFailure runs just those lines (e.g. under --cpu-prof).
  const only = process.env.BENCH_ONLY?.split(',') as Line[] | undefined;
  const order = only ?? (Object.keys(lines) as Line[]);
  const results = Object.fromEntries(order.map((line) => [line, [] as Run[]])) as Record<Line, Run[]>;
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const line of round % 2 === 1 ? order : [...order].reverse()) {
        const { before, run, after } = lines[line];
        await before?.();
        const fresh = await connection.createConfirmChannel();
        const started = process.cpuUsage();
        const ms = await run(fresh);
        const cpu = process.cpuUsage(started);
        await after?.();
        results[line].push({ ms, cpuUs: (cpu.user + cpu.system) / MESSAGES });
      }
      console.error(`round ${round}/${ROUNDS} done`);
    }
  } finally {
    await channel.deleteQueue(sink);
    await deleteTopology(channel, plan, management);
    await connection.close();
  }

  const rate = (ms: number) => MESSAGES / (ms / 1000);
  const spread = (values: number[]) =>
    `median ${median(values).toFixed(2)}, range ${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
  const ratios = (line: Line, base: Line) =>
    results[line].map((run, index) => rate(run.ms) / rate(results[base][index]?.ms ?? Number.NaN));
  console.log(`messages per run: ${MESSAGES}, rounds: ${ROUNDS}, prefetch ${PREFETCH}`);
  for (const line of order) {
    const runs = results[line];
    console.log(
      `${line.padEnd(15)} ${Math.round(rate(median(runs.map((run) => run.ms))))
        .toString()
        .padStart(7)} msg/s (median)  Node CPU ${median(runs.map((run) => run.cpuUs)).toFixed(1)} µs/msg`,
    );
  }
  const has = (...names: Line[]) => names.every((name) => order.includes(name));
  const report = (label: string, line: Line, base: Line) => {
    if (has(line, base)) console.log(`${label}, per round: ${spread(ratios(line, base))}`);
  };
  report('happy:   consumeWithRetries / raw consume+ack', 'wrapperHappy', 'rawConsume');
  report(
    'happy:   consumeWithRetries acking one by one / raw consume+ack',
    'wrapperHappyUnbatched',
    'rawConsume',
  );
  report('failure: consumeWithRetries / hand-written retry loop', 'wrapperFailure', 'handRetry');
  report('failure: consumeWithRetries / bare loop (no handler)', 'wrapperFailure', 'rawRoute');
  report('failure: hand-written retry loop / bare loop', 'handRetry', 'rawRoute');
  const cpu = (line: Line) => median(results[line].map((run) => run.cpuUs));
  if (has('wrapperFailure', 'handRetry'))
    console.log(
      `Node CPU per message: consumeWithRetries / hand-written retry loop ${(cpu('wrapperFailure') / cpu('handRetry')).toFixed(2)}`,
    );
  console.log(JSON.stringify({ messages: MESSAGES, rounds: ROUNDS, results }));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
