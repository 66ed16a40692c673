/**
 * The batched engine's own cost per record, in memory: no broker, no client. It shows what the
 * engine adds to a consumer loop, and what each record allocates, without the noise of a broker
 * on the same two cores (bench/kafka/throughput.ts measures the whole on the real broker).
 *
 *   npm run build && npx tsx bench/kafka/engine.ts [records=200000] [rounds=5]
 *
 * The runtime is the build in dist/ (BENCH_RUNTIME=source: the sources; bench/kafka/runtime.ts).
 *
 * Each line hands the same pre-built KafkaJS batches (6 partitions side by side, 500 records of
 * 200 bytes each, as KafkaJS's fetch gives them) to an `eachBatch`:
 *
 *   raw loop         what a user writes by hand: await the handler for each record, then
 *                    resolveOffset, then one commitOffsets per batch;
 *   runtime          createKafkaRetry's main consumer, its handler resolves (no event listener);
 *   runtime, events  the same with an onEvent listener (a `handled` event per record);
 *   raw failure      by hand: a handler that throws an HTTP 503, each record's copy (with an
 *                    attempt header) to the retry topic, one send per batch, one commit;
 *   runtime failure  createKafkaRetry with that handler: classified, a copy to retry level 1.
 *
 * BENCH_LINES='runtime failure' runs one line (and its reference), to profile it.
 *
 * The handler does nothing (or throws). The fake consumer's commit and the fake producer's send
 * resolve at once. Time is per record,
 * median and range over rounds; `allocated` is the heap a record costs, measured in a round of
 * its own with the young generation large enough that no collection runs in it (run under
 * `node --expose-gc --min-semi-space-size=256 --max-semi-space-size=256`, which the script
 * re-executes itself with).
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { RetryPlan } from '../../policy';
import type { KafkaHandler } from '../../runtime/kafka';
import type { ConsumerLike, EachBatchPayloadLike } from '../../runtime/kafka/contract';
import { benchPlan } from '../plan';
import { BENCH_RUNTIME, kafkaRuntime } from './runtime';

const { createKafkaRetry } = kafkaRuntime;

const RECORDS = Number(process.argv[2] ?? '200000');
const ROUNDS = Number(process.argv[3] ?? '5');
const PARTITIONS = 6;
const BATCH = 500;
const VALUE = Buffer.alloc(200, 7);
const SEMI_SPACE_MB = 256;

if (!process.execArgv.includes('--expose-gc')) {
  // Again, with the flags the allocation round needs.
  execFileSync(
    process.execPath,
    [
      ...process.execArgv,
      '--expose-gc',
      `--min-semi-space-size=${SEMI_SPACE_MB}`,
      `--max-semi-space-size=${SEMI_SPACE_MB}`,
      ...process.argv.slice(1),
    ],
    { stdio: 'inherit' },
  );
  process.exit(0);
}

type EachBatch = (payload: EachBatchPayloadLike) => Promise<void>;

/** The part of a consumer the runtime uses; commits resolve at once. */
class MemoryConsumer implements ConsumerLike {
  eachBatch: EachBatch | undefined;
  async connect() {}
  async disconnect() {}
  async subscribe() {}
  async run(config: { eachBatch?: EachBatch }) {
    this.eachBatch = config.eachBatch;
  }
  async commitOffsets() {}
  seek() {}
  pause() {}
  resume() {}
  on() {
    return () => undefined;
  }
  readonly events = { GROUP_JOIN: 'consumer.group_join' };
}

/** Every batch of a round: `records` records over PARTITIONS partitions, BATCH records a batch. */
function batches(topic: string, records: number): EachBatchPayload[][] {
  const perPartition = Math.ceil(records / PARTITIONS);
  const byPartition: EachBatchPayload[][] = [];
  for (let partition = 0; partition < PARTITIONS; partition++) {
    const list: EachBatchPayload[] = [];
    for (let from = 0; from < perPartition; from += BATCH) {
      const messages: KafkaMessage[] = [];
      for (let offset = from; offset < Math.min(perPartition, from + BATCH); offset++) {
        messages.push({
          key: Buffer.from(`key-${offset * PARTITIONS + partition}`),
          value: VALUE,
          timestamp: '1765000000000',
          attributes: 0,
          offset: String(offset),
          headers: {},
        });
      }
      const last = messages[messages.length - 1]?.offset ?? '0';
      list.push({
        batch: {
          topic,
          partition,
          highWatermark: String(perPartition),
          messages,
          isEmpty: () => false,
          firstOffset: () => messages[0]?.offset ?? null,
          lastOffset: () => last,
          offsetLag: () => '0',
          offsetLagLow: () => '0',
        },
        resolveOffset: () => undefined,
        heartbeat: async () => undefined,
        pause: () => () => undefined,
        commitOffsetsIfNecessary: async () => undefined,
        uncommittedOffsets: () => ({ topics: [] }),
        isRunning: () => true,
        isStale: () => false,
      });
    }
    byPartition.push(list);
  }
  return byPartition;
}

const handler: KafkaHandler = async () => {};
/** What an HTTP client throws for a 503: the plan's preset calls it transient (retry level 1). */
const failing: KafkaHandler = async () => {
  throw Object.assign(new Error('503 Service Unavailable'), { status: 503 });
};

type Kind = 'raw' | 'runtime' | 'events' | 'raw failure' | 'runtime failure';
const KINDS: Kind[] = ['raw', 'runtime', 'events', 'raw failure', 'runtime failure'];
/** The line each line's time is compared with. */
const REFERENCE: Record<Kind, Kind> = {
  raw: 'raw',
  runtime: 'raw',
  events: 'raw',
  'raw failure': 'raw failure',
  'runtime failure': 'raw failure',
};

/** The raw loop a user writes by hand with eachBatch. */
function rawLoop(consumer: MemoryConsumer): EachBatch {
  return async (payload) => {
    const { messages } = payload.batch;
    for (const message of messages) {
      await handler(message, undefined as never);
      payload.resolveOffset(message.offset);
    }
    if (messages.length > 0) await consumer.commitOffsets();
  };
}

/**
 * The failure loop a user writes by hand: each record to the failing handler, its copy (key,
 * value, partition, an attempt header) to the retry topic, every copy of the batch in one send,
 * then one commit (bench/kafka/throughput.ts line 3).
 */
function rawFailureLoop(consumer: MemoryConsumer, topic: string): EachBatch {
  const producer = { send: async (_record: unknown) => [] };
  return async (payload) => {
    const { messages, partition } = payload.batch;
    const copies = [];
    for (const message of messages) {
      try {
        await failing(message, undefined as never);
      } catch {
        copies.push({ key: message.key, value: message.value, partition, headers: { 'retry-attempt': '2' } });
      }
    }
    await producer.send({ topic, acks: -1, messages: copies });
    if (messages.length > 0) await consumer.commitOffsets();
  };
}

async function line(kind: Kind, plan: RetryPlan, work: EachBatchPayload[][]) {
  const consumer = new MemoryConsumer();
  let eachBatch: EachBatch;
  let retry: ReturnType<typeof createKafkaRetry> | undefined;
  if (kind === 'raw') eachBatch = rawLoop(consumer);
  else if (kind === 'raw failure')
    eachBatch = rawFailureLoop(consumer, plan.targets.kafka?.levels[0]?.destination as string);
  else {
    let events = 0;
    retry = createKafkaRetry({
      plan,
      handler: kind === 'runtime failure' ? failing : handler,
      producer: { send: async () => [] },
      meter: undefined,
      ...(kind === 'events' ? { onEvent: () => void events++ } : {}),
    });
    await retry.runMain(consumer as never);
    eachBatch = consumer.eachBatch as EachBatch;
  }
  // The partitions side by side, each batch after the one before (as the clients do).
  const started = performance.now();
  await Promise.all(
    work.map(async (list) => {
      for (const payload of list) await eachBatch(payload);
    }),
  );
  const ms = performance.now() - started;
  await retry?.stop();
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function allocatedPerRecord(kind: Kind, plan: RetryPlan): Promise<string> {
  const records = 50_000;
  const work = batches(plan.targets.kafka?.sourceTopic as string, records);
  const gc = globalThis.gc as () => void;
  gc();
  const before = getHeapStatistics().used_heap_size;
  let collections = 0;
  const { PerformanceObserver } = await import('node:perf_hooks');
  const observer = new PerformanceObserver((list) => {
    collections += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  await line(kind, plan, work);
  const after = getHeapStatistics().used_heap_size;
  await new Promise((resolve) => setImmediate(resolve));
  observer.disconnect();
  if (collections > 0) return `n/a (${collections} collections ran)`;
  return `${Math.round((after - before) / records)} B`;
}

async function main() {
  const plan = benchPlan('bench-engine', ['1h'], { kafka: { partitions: PARTITIONS } });
  const topic = plan.targets.kafka?.sourceTopic as string;
  // BENCH_LINES='runtime failure' runs only that line and its reference (to profile one).
  const only = process.env.BENCH_LINES?.split(',').map((each) => each.trim());
  const kinds = only
    ? KINDS.filter((kind) => only.includes(kind) || only.some((o) => REFERENCE[o as Kind] === kind))
    : KINDS;
  const times = Object.fromEntries(KINDS.map((kind) => [kind, [] as number[]])) as Record<Kind, number[]>;
  const work = batches(topic, RECORDS);
  // A warm-up round, not counted.
  for (const kind of kinds) await line(kind, plan, work);
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of kinds) {
      (globalThis.gc as () => void)();
      times[kind].push(((await line(kind, plan, work)) * 1_000) / RECORDS);
    }
  }
  console.log(
    `in-memory engine, ${RECORDS} records, ${PARTITIONS} partitions, batches of ${BATCH}, ${ROUNDS} rounds, ` +
      `the runtime from ${BENCH_RUNTIME}, node ${process.version}, load ${loadavg()[0]?.toFixed(2)}`,
  );
  for (const kind of kinds) {
    const us = times[kind];
    const ratios = us.map((value, at) => (times[REFERENCE[kind]][at] as number) / value);
    console.log(
      `${kind.padEnd(15)} ${median(us).toFixed(2)} µs/record (${Math.min(...us).toFixed(2)}–${Math.max(...us).toFixed(2)}), ` +
        `${REFERENCE[kind]} ÷ this ${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}), ` +
        `allocated ${await allocatedPerRecord(kind, plan)} a record`,
    );
  }
}

void main();
