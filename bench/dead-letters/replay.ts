/**
 * Dead-letter replay on the real local brokers, through the library the CLI uses.
 *
 *   npx tsx bench/dead-letters/replay.ts [messages=2000]
 *
 * For RabbitMQ and Kafka: fill the dead letters with `messages` records (as the runtime writes
 * them), then time `list` (a full read), a replay with no practical limit (1,000,000/s: what the
 * broker and the confirms allow), and paced replays of 500 at 100/s and 500/s (the rate reached
 * against the rate asked, and the most copies confirmed in any one second). Each replay starts
 * from a fresh dead-letter queue or topic. On RabbitMQ one more line, for the price of losing
 * nothing: a bare amqplib loop that takes each dead letter with auto-ack and publishes it without
 * a confirm (what a tool that receives-and-deletes before it sends does; it loses whatever is in
 * flight when it stops).
 */
import { randomBytes } from 'node:crypto';
import amqplib from 'amqplib';
import { Kafka, logLevel } from 'kafkajs';
import { deadLetterHeaders } from '../../runtime';
import type { DeadLetters } from '../../runtime/dead-letters';
import { declareKafkaTopology, kafkaDeadLetters } from '../../runtime/kafka';
import { declareTopology, deleteTopology, managementApi, rabbitMqDeadLetters } from '../../runtime/rabbitmq';
import { benchPlan } from '../plan';

const MESSAGES = Number(process.argv[2] ?? 2_000);
const URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const BROKERS = [process.env.KAFKA_BOOTSTRAP ?? '127.0.0.1:9092'];
const management = managementApi({ url: 'http://127.0.0.1:15672', username: 'guest', password: 'guest' });

const plan = (name: string) => benchPlan(name, ['1h'], { rabbitmq: {}, kafka: {} });

const headers = () =>
  Object.fromEntries(
    Object.entries(
      deadLetterHeaders({
        reason: 'exhausted',
        because: 'transient: HTTP 503',
        errorName: 'HttpRequestError',
        errorMessage: 'HTTP 503',
        attempt: 2,
        source: 'bench',
        firstFailureAt: Date.now(),
        deadLetteredAt: Date.now(),
      }),
    ).map(([key, value]) => [key, String(value)]),
  );

async function sendWithPatience(send: () => Promise<unknown>): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await send();
      return;
    } catch (error) {
      if (tries >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

interface Row {
  broker: string;
  what: string;
  messages: number;
  /** The whole command: read, then take and replay. */
  ms: number;
  /** From the first copy confirmed to the last: the rate the replay itself went at. */
  sendingMs?: number;
  asked?: number;
  /** The most copies confirmed within any one second. */
  busiest?: number;
}

function mostInOneSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[last] as number) - (sorted[first] as number) > 1_000) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

interface Subject {
  commands: DeadLetters;
  fill(count: number): Promise<void>;
  done(): Promise<void>;
}

async function measure(rows: Row[], broker: string, subject: () => Promise<Subject>) {
  for (const [what, count, rate] of [
    ['list (a full read)', MESSAGES, 0],
    ['replay, no limit', MESSAGES, 1_000_000],
    ['replay at 100/s', 500, 100],
    ['replay at 500/s', 500, 500],
  ] as const) {
    const { commands, fill, done } = await subject();
    try {
      await fill(count);
      const started = Date.now();
      const confirmed: number[] = [];
      if (rate === 0) await commands.list();
      else {
        let seen = 0;
        const report = await commands.replay({
          ratePerSecond: rate,
          dryRun: false,
          onProgress: ({ replayed }) => {
            for (; seen < replayed; seen++) confirmed.push(Date.now());
          },
        });
        if (report.replayed !== count) throw new Error(`${broker}: replayed ${report.replayed} of ${count}`);
      }
      rows.push({
        broker,
        what,
        messages: count,
        ms: Date.now() - started,
        ...(rate === 0 ? {} : { sendingMs: (confirmed.at(-1) ?? 0) - (confirmed[0] ?? 0) }),
        ...(rate > 1 && rate < 1_000_000 ? { asked: rate, busiest: mostInOneSecond(confirmed) } : {}),
      });
    } finally {
      await done();
    }
  }
}

async function main() {
  const rows: Row[] = [];
  const connection = await amqplib.connect(URL);
  const kafka = new Kafka({ clientId: 'bench-dead-letters', brokers: BROKERS, logLevel: logLevel.NOTHING });

  await measure(rows, 'RabbitMQ 3.10.8', async () => {
    const p = plan(`bench-dl-${randomBytes(3).toString('hex')}`);
    const rabbit = p.targets.rabbitmq;
    if (!rabbit) throw new Error('no rabbitmq');
    const channel = await connection.createConfirmChannel();
    await declareTopology(channel, p, management);
    return {
      commands: rabbitMqDeadLetters(p, { connection }),
      fill: async (count) => {
        for (let index = 0; index < count; index++)
          channel.publish(rabbit.deadLetterExchange, rabbit.mainQueue, Buffer.from(`{"n":${index}}`), {
            persistent: true,
            headers: headers(),
          });
        await channel.waitForConfirms();
      },
      done: async () => {
        await deleteTopology(channel, p, management);
        await channel.close();
      },
    };
  });

  {
    // The bare loop: auto-ack, no confirm. Ends when the main queue holds every message.
    const p = plan(`bench-dl-${randomBytes(3).toString('hex')}`);
    const rabbit = p.targets.rabbitmq;
    if (!rabbit) throw new Error('no rabbitmq');
    const channel = await connection.createConfirmChannel();
    await declareTopology(channel, p, management);
    for (let index = 0; index < MESSAGES; index++)
      channel.publish(rabbit.deadLetterExchange, rabbit.mainQueue, Buffer.from(`{"n":${index}}`), {
        persistent: true,
        headers: headers(),
      });
    await channel.waitForConfirms();
    const plain = await connection.createChannel();
    await plain.prefetch(1_000);
    const started = Date.now();
    let moved = 0;
    await new Promise<void>((resolve) => {
      void plain.consume(
        rabbit.deadLetterQueue,
        (message) => {
          if (!message) return;
          plain.sendToQueue(rabbit.mainQueue, message.content, { ...message.properties, persistent: true });
          if (++moved === MESSAGES) resolve();
        },
        { noAck: true },
      );
    });
    while ((await channel.checkQueue(rabbit.mainQueue)).messageCount < MESSAGES)
      await new Promise((resolve) => setTimeout(resolve, 5));
    rows.push({
      broker: 'RabbitMQ 3.10.8',
      what: 'bare loop: auto-ack, no confirm (loses in-flight on a crash)',
      messages: MESSAGES,
      ms: Date.now() - started,
    });
    await plain.close();
    await deleteTopology(channel, p, management);
    await channel.close();
  }

  await measure(rows, 'Kafka 4.4.0', async () => {
    const p = plan(`bench-dl-${randomBytes(3).toString('hex')}`);
    const target = p.targets.kafka;
    if (!target) throw new Error('no kafka');
    // Fresh clients each time: KafkaJS keeps asking for the metadata of a topic it once used,
    // and fails every call once that topic is deleted.
    const admin = kafka.admin();
    const producer = kafka.producer();
    await Promise.all([admin.connect(), producer.connect()]);
    await declareKafkaTopology(admin, p);
    return {
      commands: kafkaDeadLetters(p, {
        admin,
        producer,
        consumer: (groupId) => kafka.consumer({ groupId, maxWaitTimeInMs: 100 }),
      }),
      fill: async (count) => {
        for (let start = 0; start < count; start += 500) {
          // A topic just created may take a moment to have a leader everywhere (a loaded machine).
          await sendWithPatience(() =>
            producer.send({
              topic: target.deadLetterTopic,
              messages: Array.from({ length: Math.min(500, count - start) }, (_, index) => ({
                value: `{"n":${start + index}}`,
                partition: (start + index) % 3,
                headers: headers(),
              })),
            }),
          );
        }
      },
      done: async () => {
        await admin.deleteTopics({ topics: target.topics.map((spec) => spec.name) }).catch(() => undefined);
        await Promise.all([producer.disconnect(), admin.disconnect()]);
      },
    };
  });

  await connection.close();
  console.log(
    '| broker | what | messages | whole command | msg/s overall | msg/s while sending | asked | busiest second |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) {
    const overall = (row.messages * 1_000) / row.ms;
    const sending = row.sendingMs ? ((row.messages - 1) * 1_000) / row.sendingMs : undefined;
    console.log(
      `| ${row.broker} | ${row.what} | ${row.messages} | ${(row.ms / 1_000).toFixed(1)} s | ${overall.toFixed(0)} | ${sending === undefined ? '' : sending.toFixed(1)} | ${row.asked ? `${row.asked}/s` : ''} | ${row.busiest ?? ''} |`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
