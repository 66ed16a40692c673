/**
 * What per-key order costs on Kafka: the same workload with `ordering: none` and with
 * `ordering: per-key` (park-key), in the same rounds, on the real local broker.
 *
 *   npx tsx bench/kafka/per-key.ts [records=600] [keys=20] [rounds=3] [ratePerSecond=200] [waitsMs=100,200,400]
 *
 * KAFKA_CLIENT=confluent runs it on @confluentinc/kafka-javascript (scripts/confluent.sh).
 *
 * Workload: records spread over `keys` keys on 3 partitions (key i on partition i % 3), produced
 * at a fixed rate. A fixed 22 % of them (seeded, the same in every run) fail 1, 2 or 3 times
 * with a 503 and then succeed. Policy: 4 attempts, waits `waitsMs` (100 / 200 / 400 ms), no
 * jitter. Per-key order cannot beat each key's failing records one after another: with longer
 * waits that floor alone exceeds the unordered run by more (the floor column says by how much).
 *
 * Reported per mode: end-to-end (first send → last record handled successfully), retry lateness
 * (a retry's handler call − (its failure + the level's longest wait)), parked copies (copies
 * produced only to keep key order), records that waited behind an older record of their key,
 * and order violations (must be 0 with per-key). The floor is the per-key end-to-end a runtime
 * with no overhead at all would reach: each key's records one after another, each failing one
 * taking its waits. Nothing can beat it; the distance to it is what the runtime costs.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import type { KafkaPlan, RetryPlan } from '../../policy';
import { mulberry32 } from '../../policy/random';
import { createKafkaRetry, declareKafkaTopology, type KafkaRetryEvent } from '../../runtime/kafka';
import { BROKERS, type ConsumerSettings, KIT_NAME, kit } from '../../test/support/kafka-kit';
import { benchPlan as policyPlan } from '../plan';

const RECORDS = Number(process.argv[2] ?? 600);
const KEYS = Number(process.argv[3] ?? 20);
const ROUNDS = Number(process.argv[4] ?? 3);
const RATE = Number(process.argv[5] ?? 200);
const SETTINGS: ConsumerSettings = {
  maxWaitTimeInMs: 100,
  sessionTimeout: 30_000,
  heartbeatInterval: 1_000,
  fromBeginning: true,
};
const PARTITIONS = 3;
/** KafkaJS, for the workload's own producer and to delete what a run made. */
const helper = new Kafka({ clientId: 'bench', brokers: BROKERS, logLevel: logLevel.NOTHING });
const cleaner = helper.admin();
const WAITS_MS = (process.argv[6] ?? '100,200,400').split(',').map(Number);
const FAILING_SHARE = 0.22;

type Mode = 'ordering off' | 'per-key';

// Seeded, so every run and mode meets the same failures.
const next = mulberry32(42);
/** How many times record i fails before it succeeds. */
const FAILURES = Array.from({ length: RECORDS }, () =>
  next() < FAILING_SHARE ? 1 + Math.floor(next() * 3) : 0,
);

function benchPlan(name: string, perKey: boolean): RetryPlan {
  const delays = WAITS_MS.map((ms) => `${ms}ms`);
  return policyPlan(
    name,
    delays,
    { kafka: { partitions: PARTITIONS } },
    { ordering: perKey ? 'per-key' : 'none' },
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

/** The per-key end-to-end with zero overhead, from the actual send times of this run. */
function floorSeconds(sentAt: number[], started: number): number {
  const freeAt = new Map<number, number>();
  let end = 0;
  for (let i = 0; i < RECORDS; i++) {
    const key = i % KEYS;
    let at = Math.max(freeAt.get(key) ?? 0, sentAt[i] ?? 0);
    for (let f = 0; f < (FAILURES[i] ?? 0); f++) at += WAITS_MS[f] ?? 0;
    freeAt.set(key, at);
    end = Math.max(end, at);
  }
  return (end - started) / 1_000;
}

async function run(mode: Mode) {
  const name = `bench-perkey-${randomBytes(3).toString('hex')}`;
  const plan = benchPlan(name, mode === 'per-key');
  const target = plan.targets.kafka as KafkaPlan;
  const kafka = await kit();
  const admin = kafka.admin();
  const producer = kafka.producer();
  await Promise.all([admin.connect(), producer.connect()]);
  await declareKafkaTopology(admin, plan, { client: kafka.client });

  const sentAt: number[] = [];
  const tries = new Map<number, number>();
  const failedAt = new Map<number, number>();
  const lateness: number[] = [];
  const doneOrder = new Map<number, number[]>();
  let done = 0;
  let duplicates = 0;
  let waitedBehind = 0;
  const finished = new Set<number>();
  const events: KafkaRetryEvent[] = [];

  const retry = createKafkaRetry({
    plan,
    producer,
    admin,
    client: kafka.client,
    consumerSettings: { maxWaitTimeInMs: SETTINGS.maxWaitTimeInMs, sessionTimeout: SETTINGS.sessionTimeout },
    fromBeginning: true,
    meter: undefined,
    onEvent: (event) => events.push(event),
    handler: async (message, context) => {
      const i = Number(String(message.value));
      const now = performance.now();
      const tried = (tries.get(i) ?? 0) + 1;
      tries.set(i, tried);
      if (context.attempt > 1) {
        const level = context.attempt - 2;
        lateness.push(now - ((failedAt.get(i) ?? now) + (WAITS_MS[level] ?? 0)));
      } else if (context.parked) waitedBehind++;
      if (tried <= (FAILURES[i] ?? 0)) {
        failedAt.set(i, now);
        throw Object.assign(new Error('HTTP 503'), { name: 'HttpRequestError', status: 503 });
      }
      if (finished.has(i)) {
        duplicates++;
        return;
      }
      finished.add(i);
      const key = i % KEYS;
      doneOrder.set(key, [...(doneOrder.get(key) ?? []), i]);
      done++;
    },
  });
  // The consumers the plan needs, made by the runtime: one per chain with per-key order.
  await retry.run(kafka.kafka);

  // The records come from another producer, as from another application, sent at the rate
  // without waiting for each acknowledgement: the runtime is measured, not this loop.
  const source = helper.producer();
  await source.connect();
  const sends: Array<Promise<unknown>> = [];
  const started = performance.now();
  for (let i = 0; i < RECORDS; i++) {
    await sleep(started + (i * 1_000) / RATE - performance.now());
    sentAt.push(performance.now());
    sends.push(
      source.send({
        topic: target.sourceTopic,
        messages: [
          {
            key: `key-${i % KEYS}`,
            value: String(i),
            partition: (i % KEYS) % PARTITIONS,
          },
        ],
      }),
    );
  }
  await Promise.all(sends);
  const deadline = Date.now() + 180_000;
  while (done < RECORDS && Date.now() < deadline) await sleep(10);
  const elapsed = (performance.now() - started) / 1_000;

  await retry.stop(); // and disconnects the consumers it made
  await Promise.all([admin.disconnect(), producer.disconnect(), source.disconnect()]);
  await cleaner.deleteTopics({ topics: target.topics.map((spec) => spec.name) }).catch(() => undefined);
  const groups = (await cleaner.listGroups()).groups.map((g) => g.groupId).filter((id) => id.includes(name));
  await cleaner.deleteGroups(groups).catch(() => undefined);

  let violations = 0;
  for (const order of doneOrder.values())
    for (let j = 1; j < order.length; j++) if ((order[j] ?? 0) < (order[j - 1] ?? 0)) violations++;
  return {
    mode,
    elapsed,
    floor: floorSeconds(sentAt, started),
    done,
    duplicates,
    lateP50: percentile(lateness, 50),
    lateP99: percentile(lateness, 99),
    lateMax: Math.max(...lateness),
    parked: events.filter((event) => event.type === 'parked').length,
    waitedBehind,
    violations: mode === 'per-key' ? violations : Number.NaN,
    failed: events.filter((event) => event.type === 'failed').length,
  };
}

async function main() {
  await cleaner.connect();
  const failing = FAILURES.filter((f) => f > 0).length;
  console.log(
    `\n${RECORDS} records, ${KEYS} keys, ${PARTITIONS} partitions, ${RATE}/s; ${failing} fail 1–3 times; waits ${WAITS_MS.join('/')} ms; client ${KIT_NAME}; ${ROUNDS} rounds\n`,
  );
  console.log(
    '| round | mode | end-to-end s | ÷ ordering off | floor s | lateness p50 / p99 / max ms | parked copies | waited behind a key | order violations | handled / duplicates | recovered errors |',
  );
  console.log('|---|---|---:|---:|---:|---|---:|---:|---:|---|---:|');
  for (let round = 1; round <= ROUNDS; round++) {
    const off = await run('ordering off');
    const perKey = await run('per-key');
    for (const r of [off, perKey]) {
      console.log(
        `| ${round} | ${r.mode} | ${r.elapsed.toFixed(2)} | ${(r.elapsed / off.elapsed).toFixed(2)}× | ${r.mode === 'per-key' ? r.floor.toFixed(2) : ''} | ${r.lateP50.toFixed(0)} / ${r.lateP99.toFixed(0)} / ${r.lateMax.toFixed(0)} | ${r.parked} | ${r.waitedBehind} | ${Number.isNaN(r.violations) ? '' : r.violations} | ${r.done} / ${r.duplicates} | ${r.failed} |`,
      );
    }
  }
  await cleaner.disconnect();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
