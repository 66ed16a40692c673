/**
 * What one chain-view snapshot costs on the real local broker: the retry group's committed
 * offsets, the log ends of every retry topic, and the reader catching up to them.
 *
 *   npx tsx bench/kafka/snapshot.ts [snapshots=200] [levels=3]
 *
 * Two cases, each `snapshots` times: an idle chain (nothing new to read), and a busy one (a copy
 * produced to a retry topic right before each snapshot, so the reader must fetch it first).
 * KAFKA_CLIENT=confluent runs it on @confluentinc/kafka-javascript.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import { systemClock } from '../../runtime/clock';
import { ChainView } from '../../runtime/kafka/chain-view';
import { BROKERS, KIT_NAME, kit } from '../../test/support/kafka-kit';

const SNAPSHOTS = Number(process.argv[2] ?? 200);
const LEVELS = Number(process.argv[3] ?? 3);
const helper = new Kafka({ clientId: 'bench', brokers: BROKERS, logLevel: logLevel.NOTHING }).admin();

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

async function main() {
  const name = `bench-snapshot-${randomBytes(3).toString('hex')}`;
  const topics = Array.from({ length: LEVELS }, (_, i) => `${name}.retry.${i + 1}`);
  await helper.connect();
  await helper.createTopics({
    waitForLeaders: true,
    topics: topics.map((topic) => ({ topic, numPartitions: 3, replicationFactor: 1 })),
  });
  const client = await kit();
  const admin = client.admin();
  const producer = client.producer();
  await Promise.all([admin.connect(), producer.connect()]);
  const view = new ChainView({
    admin,
    consumer: client.consumer(`${name}.view`, { maxWaitTimeInMs: 100, fromBeginning: true }),
    retryGroup: `${name}.retry-group`,
    retryTopics: topics,
    client: client.client,
    clock: systemClock,
    catchUpTimeoutMs: 15_000,
  });
  await view.start();
  await view.fresh(); // the reader has joined and read the (empty) chain

  const time = async (before: (i: number) => Promise<unknown>) => {
    const took: number[] = [];
    for (let i = 0; i < SNAPSHOTS; i++) {
      await before(i);
      const started = performance.now();
      await view.fresh();
      took.push(performance.now() - started);
    }
    return took;
  };
  const idle = await time(async () => undefined);
  const busy = await time((i) =>
    producer.send({
      topic: topics[i % LEVELS] as string,
      messages: [{ key: Buffer.from(`k${i}`), value: Buffer.from('v'), partition: i % 3, headers: {} }],
    }),
  );

  await view.stop();
  await Promise.all([admin.disconnect(), producer.disconnect()]);
  await helper.deleteTopics({ topics }).catch(() => undefined);
  await helper.disconnect();

  console.log(
    `\n${SNAPSHOTS} snapshots per case, ${LEVELS} retry topics × 3 partitions, client ${KIT_NAME}\n`,
  );
  console.log('| chain | p50 ms | p90 ms | p99 ms | max ms |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [label, took] of [
    ['idle (nothing new to read)', idle],
    ['a copy produced right before', busy],
  ] as const) {
    const ms = (p: number) => percentile(took, p).toFixed(1);
    console.log(`| ${label} | ${ms(50)} | ${ms(90)} | ${ms(99)} | ${Math.max(...took).toFixed(1)} |`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
