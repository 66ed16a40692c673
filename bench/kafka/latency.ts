/**
 * Healthy-record latency in a Kafka partition where some records fail, on the real local broker.
 *
 *   npx tsx bench/kafka/latency.ts [records=500] [ratePerSecond=50] [failEvery=10] [rounds=5]
 *
 * One source partition. Records are produced at a fixed rate; every `failEvery`-th one fails
 * once with a 503 (transient) and succeeds on its second attempt, after the policy's 1 s wait.
 * Latency = handler call − send, for the healthy records only (those that never fail).
 *
 *   baseline           the adapter, no failures
 *   adapter            the adapter, 10% failing: a failure is a copy to the retry topic, the
 *                      partition moves on
 *   adapter park-key   the same with park-key ordering (unique keys: nothing is parked, this
 *                      measures what the chain view costs)
 *   blocking wait      the peer to beat: where the record failed, the handler sleeps until
 *                      the retry is due and calls again, so the partition waits with it
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import type { KafkaPlan, RetryPlan } from '../../policy';
import { createKafkaRetry, declareKafkaTopology } from '../../runtime/kafka';
import { benchPlan as policyPlan } from '../plan';

const RECORDS = Number(process.argv[2] ?? 500);
const RATE = Number(process.argv[3] ?? 50);
const FAIL_EVERY = Number(process.argv[4] ?? 10);
const ROUNDS = Number(process.argv[5] ?? 5);
const DELAY = '1s';
const kafka = new Kafka({
  clientId: 'bench',
  brokers: [process.env.KAFKA_BOOTSTRAP ?? '127.0.0.1:9092'],
  logLevel: logLevel.NOTHING,
});
const FAST = { maxWaitTimeInMs: 100, sessionTimeout: 30_000, heartbeatInterval: 1_000 };

type Mode = 'baseline' | 'adapter' | 'adapter park-key' | 'blocking wait';

function benchPlan(name: string, parkKey: boolean): RetryPlan {
  return policyPlan(name, [DELAY], { kafka: { partitions: 1 } }, { ordering: parkKey ? 'per-key' : 'none' });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const fails = (i: number, mode: Mode) => mode !== 'baseline' && i % FAIL_EVERY === FAIL_EVERY - 1;

async function run(mode: Mode) {
  const name = `bench-kafka-${randomBytes(3).toString('hex')}`;
  const plan = benchPlan(name, mode === 'adapter park-key');
  const target = plan.targets.kafka as KafkaPlan;
  const admin = kafka.admin();
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await Promise.all([admin.connect(), producer.connect()]);
  await declareKafkaTopology(admin, plan);

  const sentAt = new Map<number, number>();
  const healthy: number[] = [];
  let finished = 0;
  const seen = (i: number) => {
    const latency = performance.now() - (sentAt.get(i) ?? Number.NaN);
    if (!fails(i, mode)) healthy.push(latency);
  };
  const calls = new Map<number, number>();
  const handle = async (i: number) => {
    const call = (calls.get(i) ?? 0) + 1;
    calls.set(i, call);
    if (call === 1) seen(i);
    if (fails(i, mode) && call === 1) throw Object.assign(new Error('503'), { status: 503 });
    finished++;
  };

  const consumers: Consumer[] = [];
  const consumer = (groupId: string) => {
    const made = kafka.consumer({ groupId, ...FAST });
    consumers.push(made);
    return made;
  };
  let stopRetry = async () => {};
  if (mode === 'blocking wait') {
    const main = consumer(target.consumerGroup);
    await main.connect();
    await main.subscribe({ topics: [target.sourceTopic], fromBeginning: true });
    await main.run({
      eachMessage: async ({ message }) => {
        const i = Number(message.value);
        for (;;) {
          try {
            return await handle(i);
          } catch {
            await sleep(1_000); // WaitUntilDue: the partition waits with the record
          }
        }
      },
    });
  } else {
    const retry = createKafkaRetry({
      plan,
      producer,
      admin,
      consumerSettings: FAST,
      fromBeginning: true,
      meter: undefined,
      handler: async (message) => handle(Number(message.value)),
    });
    stopRetry = () => retry.stop();
    // The consumers the plan needs, made by the runtime: one per chain with per-key order.
    await retry.run(kafka);
  }

  const started = performance.now();
  for (let i = 0; i < RECORDS; i++) {
    await sleep(started + (i * 1_000) / RATE - performance.now());
    sentAt.set(i, performance.now());
    await producer.send({
      topic: target.sourceTopic,
      messages: [{ key: `order-${i}`, value: String(i), partition: 0 }],
    });
  }
  const deadline = Date.now() + 300_000;
  while (finished < RECORDS && Date.now() < deadline) await sleep(50);
  const elapsed = (performance.now() - started) / 1_000;

  await stopRetry();
  await Promise.all(consumers.map((each) => each.disconnect().catch(() => undefined)));
  await admin.deleteTopics({ topics: target.topics.map((spec) => spec.name) }).catch(() => undefined);
  const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.includes(name));
  await admin.deleteGroups(groups).catch(() => undefined);
  await Promise.all([admin.disconnect(), producer.disconnect()]);

  const sorted = healthy.sort((a, b) => a - b);
  return {
    mode,
    healthy: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    finished,
    elapsed,
  };
}

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

async function main() {
  const modes: Mode[] = ['baseline', 'adapter', 'adapter park-key', 'blocking wait'];
  const results = new Map<Mode, Array<Awaited<ReturnType<typeof run>>>>(modes.map((mode) => [mode, []]));
  // Rounds interleave the modes, so load from elsewhere on the machine falls on all of them. The
  // blocking wait runs once: its latency is its sleeps, thousands of times the noise.
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of modes) {
      if (mode === 'blocking wait' && round > 0) continue;
      results.get(mode)?.push(await run(mode));
    }
  }
  const baseline = results.get('baseline') ?? [];
  const base = median(baseline.map((r) => r.p99));
  console.log(
    `\n${RECORDS} records at ${RATE}/s on one partition; every ${FAIL_EVERY}th fails once (503), retry wait ${DELAY}; ${ROUNDS} rounds\n`,
  );
  console.log(
    '| run | healthy records | p50 ms (median) | p99 ms (median) | p99 per round ms | max ms | p99 / baseline p99, same round (median) | all done after s |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const ms = (value: number) => value.toFixed(1);
  for (const mode of modes) {
    const rs = results.get(mode) ?? [];
    const ratios = rs.map((r, i) => r.p99 / (baseline[i]?.p99 ?? base));
    console.log(
      `| ${mode} | ${rs[0]?.healthy} | ${ms(median(rs.map((r) => r.p50)))} | ${ms(median(rs.map((r) => r.p99)))} | ${rs.map((r) => ms(r.p99)).join(' / ')} | ${ms(Math.max(...rs.map((r) => r.max)))} | ${median(ratios).toFixed(2)}× | ${median(rs.map((r) => r.elapsed)).toFixed(1)} |`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
