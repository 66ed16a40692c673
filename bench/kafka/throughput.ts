/**
 * Kafka throughput of the runtime beside hand-written loops on the same client, on the real
 * local broker.
 *
 *   npm run build && npx tsx bench/kafka/throughput.ts [records=20000] [partitions=6] [rounds=3]
 *   KAFKA_CLIENT=confluent npx tsx bench/kafka/throughput.ts …   # on @confluentinc/kafka-javascript
 *
 * KAFKA_CLIENT=confluent needs the client built and linked (bash scripts/confluent.sh); it is
 * loaded the way the test kit loads it (test/support/kafka-kit.ts), and only then.
 *
 * Every line of every round gets a fresh source topic of `partitions` partitions (and the plan's
 * retry and dead-letter topics, declared with declareKafkaTopology for every line, so every line
 * runs beside the same topics), prefilled with `records` records of 200 bytes (key `key-<i>`,
 * partition i % partitions), in big batches with acks -1, before the clock starts. The clock
 * runs from the consumer's start (subscribe + run, as runMain does both) until the line itself
 * reports the last record done; the group join is part of the time. Lines:
 *
 *   1 raw eachMessage          the client's eachMessage, its default autoCommit (KafkaJS: on, per
 *                              run; Confluent: on, in its config), a handler that does nothing.
 *                              Done = the handler was called.
 *   2 raw eachBatch            eachBatch, eachBatchAutoResolve left on, one commitOffsets(last + 1)
 *                              per batch. Done = the batch's commit resolved.
 *   3 hand-written failure     eachBatch; each record goes to the same failing handler as lines 6
 *     loop                     and 7, then every record's copy (same key, value and partition,
 *                              plus the attempt header) goes to the retry topic in one
 *                              producer.send (acks -1, the idempotent producer of
 *                              KAFKA_PRODUCER_SETTINGS), then one commit. Done = that commit
 *                              resolved. What an application without the runtime would write,
 *                              minus classification, dead letters and the chain headers.
 *   5 runtime happy                createKafkaRetry, runMain, the handler resolves. (Lines 4 and 6
 *                                  were the per-record engine's, now removed; the numbers stay,
 *                                  as BENCHMARKS.md uses them.)
 *   7 runtime failure              the same, the handler throws an HTTP 503 (transient: the policy
 *                                  sends it to retry level 1).
 *   8 runtime happy, per-key       a plan with per-key order, on the batched engine: run(kafka),
 *                                  one consumer for the source and retry topics (it makes its own
 *                                  consumer from the client, with range assignment).
 *   9 runtime failure, per-key     the same, the handler throws an HTTP 503. Every key is unique
 *                                  (key-<i>), so nothing parks: the cost of per-key order itself.
 *
 * Runtime lines 5 and 7 run only the main consumer (runMain): no retry consumer reads the copies
 * (the level's wait is an hour anyway); lines 8 and 9 read the retry topic too, and find nothing
 * due. Done = a `handled` event of the main role, which the runtime emits after the copy is
 * acknowledged and the offset committed (batch-engine.ts).
 * Records are counted once per partition and offset, whatever a rebalance redelivers.
 *
 * Every consumer reads `partitions` partitions at once (capped at 16, as the runtime does), with
 * the fetch settings of latency.ts, in a group of its own. Lines run in the same order in every
 * round, so load from elsewhere on the machine falls on all of them; the ratios are taken within
 * a round: lines 2, 5, 8 against line 1, line 7 against line 3, line 9 against line 7 (per-key ÷
 * unordered, same client).
 *
 * Also reported per line: the broker's CPU (utime + stime of its JVM, /proc/<pid>/stat) over the
 * timed part per 1,000 records. The broker is found with `pgrep -f kafka.Kafka` (the one whose
 * server.properties listens on the KAFKA_BOOTSTRAP port, or the only one), or given as
 * KAFKA_BROKER_PID; n/a when neither works. It counts whatever else the broker does meanwhile.
 *
 * The runtime measured is the build in dist/; BENCH_RUNTIME=source measures the sources under
 * tsx instead (bench/kafka/runtime.ts). The lines written by hand run under tsx either way.
 *
 * Env:
 *   KAFKA_BOOTSTRAP     broker (default 127.0.0.1:9092)
 *   KAFKA_CLIENT        kafkajs (default) or confluent
 *   KAFKA_BROKER_PID    the broker's pid, when pgrep cannot find it
 *   BENCH_TIMEOUT_S     per line (default 300): a line not done by then counts as 'timeout'
 *   BENCH_JSON          a file for the results as JSON (else they are the last line of stdout)
 *   BENCH_LINES         only these lines, e.g. 5,7 (to profile one; no ratios then)
 *
 * Notes: with the Confluent client eachBatch hands over at most 32 records per batch
 * ('js.consumer.max.batch.size'), for lines 2, 3, 5 and 7 alike. Nothing here deletes a topic
 * it did not create: each line's topics and consumer group are deleted after the line.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type Admin, Kafka, logLevel, type Producer } from 'kafkajs';
import type { KafkaPlan } from '../../policy';
import type { ConsumedMessage, KafkaRetry, OutgoingMessage } from '../../runtime/kafka';
import { KAFKA_DEFAULTS } from '../../runtime/kafka/options';
import {
  BROKERS,
  type ConsumerSettings,
  KIT_NAME,
  type Kit,
  type KitConsumer,
  type KitProducer,
  kit,
} from '../../test/support/kafka-kit';
import { benchPlan } from '../plan';
import { BENCH_RUNTIME, kafkaRuntime } from './runtime';

const { createKafkaRetry, declareKafkaTopology } = kafkaRuntime;

const RECORDS = positive(process.argv[2] ?? '20000', 'records');
const PARTITIONS = positive(process.argv[3] ?? '6', 'partitions');
const ROUNDS = positive(process.argv[4] ?? '3', 'rounds');
/** BENCH_LINES=5,7 runs only those lines (to profile one); their references are then missing. */
const ONLY = process.env.BENCH_LINES ? new Set(process.env.BENCH_LINES.split(',').map(Number)) : undefined;
const TIMEOUT_MS = 1_000 * positive(process.env.BENCH_TIMEOUT_S ?? '300', 'BENCH_TIMEOUT_S');
const VALUE = randomBytes(200);
/** Records per prefill send: about 77 KB per partition at 6 partitions, far under the 1 MB a batch may have. */
const PREFILL_BATCH = 2_000;
/** The runtime's own bound on partitions read at once (kafka-retry.ts); the raw lines use the same. */
const CONCURRENT_PARTITIONS = Math.min(PARTITIONS, KAFKA_DEFAULTS.maxPartitionsConsumedConcurrently);
/** latency.ts's fetch settings; fromBeginning for the prefilled records (the Confluent client takes it here). */
const SETTINGS: ConsumerSettings = {
  maxWaitTimeInMs: 100,
  sessionTimeout: 30_000,
  heartbeatInterval: 1_000,
  fromBeginning: true,
};
/** Nothing reads the copies: an hour's wait says so. */
const DELAYS = ['1h'];
/** A cleanup step that takes longer is left behind (and reported), so one bad line cannot hang the run. */
const CLEANUP_MS = 60_000;
/** Copies per send in line 3 stay under this, as the runtime's do (send-copies.ts): the broker refuses a batch past 1 MB. */
const MAX_SEND_BYTES = 900 * 1024;

/** KafkaJS, for the bench's own work whatever the client under test: topics, prefill, checks, cleanup. */
const helper = new Kafka({ clientId: 'bench', brokers: BROKERS, logLevel: logLevel.NOTHING });

interface Line {
  id: number;
  label: string;
  kind: 'raw eachMessage' | 'raw eachBatch' | 'hand-written failure' | 'runtime';
  /** A plan with per-key order, run with run(kafka). */
  perKey?: boolean;
  fail: boolean;
  /** The line this one's rate is divided by, round by round. */
  reference?: number;
}

const LINES: Line[] = [
  { id: 1, label: 'raw eachMessage, autoCommit', kind: 'raw eachMessage', fail: false },
  { id: 2, label: 'raw eachBatch, commit per batch', kind: 'raw eachBatch', fail: false, reference: 1 },
  { id: 3, label: 'hand-written failure loop (eachBatch)', kind: 'hand-written failure', fail: true },
  { id: 5, label: 'runtime happy', kind: 'runtime', fail: false, reference: 1 },
  { id: 7, label: 'runtime failure', kind: 'runtime', fail: true, reference: 3 },
  {
    id: 8,
    label: 'runtime happy, per-key',
    kind: 'runtime',
    perKey: true,
    fail: false,
    reference: 1,
  },
  {
    id: 9,
    label: 'runtime failure, per-key',
    kind: 'runtime',
    perKey: true,
    fail: true,
    reference: 7,
  },
];

interface Run {
  round: number;
  status: 'ok' | 'timeout' | 'error';
  records: number;
  /** Records the line reported done (all of them unless it timed out). */
  done: number;
  ms: number;
  recordsPerSecond: number;
  /** Broker CPU over the timed part, ms per 1,000 records; null when the broker was not found. */
  brokerCpuMsPer1000: number | null;
  /** Runtime lines: errors the runtime recovered from (`failed` events), and handled events of another outcome. */
  failedEvents: number;
  unexpectedOutcomes: number;
  /** After the line: committed offsets and (failure lines) copies on the retry topic, against `records`. */
  committed: number | null;
  copies: number | null;
  error?: string;
}

function positive(text: string, what: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${what} must be a positive integer, not "${text}"`);
  return value;
}

/** The handler of every failure line: what an HTTP client throws for a 503 (the plan's preset calls it transient). */
async function failing(): Promise<void> {
  throw Object.assign(new Error('503 Service Unavailable'), { status: 503 });
}

/**
 * Records done, once per partition and offset (a rebalance may hand a record over again), and
 * the moment the last one was.
 */
class Progress {
  private readonly seen = new Set<number>();
  private finish: (at: number) => void = () => {};
  readonly done: Promise<number>;

  constructor(private readonly target: number) {
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  get count(): number {
    return this.seen.size;
  }

  mark(partition: number, offset: string): void {
    this.seen.add(partition * 2 ** 32 + Number(offset));
    if (this.seen.size >= this.target) this.finish(performance.now());
  }
}

// --- the broker's CPU -------------------------------------------------------------------------

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The broker's JVM: KAFKA_BROKER_PID, else the kafka.Kafka process serving the bootstrap port, else the only one. */
function findBroker(): number | undefined {
  if (process.env.KAFKA_BROKER_PID) return Number(process.env.KAFKA_BROKER_PID);
  let listed: string;
  try {
    listed = execFileSync('pgrep', ['-f', 'kafka.Kafka'], { encoding: 'utf8' });
  } catch {
    return undefined; // pgrep exits 1 when nothing matches
  }
  const port = BROKERS[0]?.split(':').pop() ?? '9092';
  const brokers: number[] = [];
  for (const pid of listed.split('\n').map(Number)) {
    if (!Number.isSafeInteger(pid) || pid <= 0) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone since pgrep
    }
    // The pattern also matches other command lines that mention it (a `tail` of its logs, say).
    const main = args.indexOf('kafka.Kafka');
    if (main < 0) continue;
    brokers.push(pid);
    // scripts/kafka.sh and kafka-cluster.sh start it as `kafka.Kafka <server.properties>`.
    const config = args[main + 1];
    try {
      const listeners = readFileSync(config ?? '', 'utf8').match(/^listeners=(.*)$/m)?.[1] ?? '';
      if (new RegExp(`:${port}(?!\\d)`).test(listeners)) return pid;
    } catch {
      // Not readable from here: fall back to the only broker, if there is one.
    }
  }
  return brokers.length === 1 ? brokers[0] : undefined;
}

const BROKER_PID = findBroker();

/** utime + stime of the broker, in clock ticks (fields 14 and 15 of /proc/<pid>/stat, all threads). */
function brokerTicks(): number | undefined {
  if (BROKER_PID === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${BROKER_PID}/stat`, 'utf8');
    // Field 2, the command, is in parentheses and may hold spaces: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

// --- one line ---------------------------------------------------------------------------------

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let abandoned = 0;

/** Waits for a cleanup step at most CLEANUP_MS; a failure or a hang is reported, never thrown. */
async function bounded(step: Promise<unknown>, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), CLEANUP_MS);
  });
  const outcome = await Promise.race([step.then(() => 'ok' as const), late]).catch((error: unknown) => {
    console.error(`  (${what} failed: ${String(error)})`);
    return 'failed' as const;
  });
  clearTimeout(timer);
  if (outcome === 'late') {
    abandoned++;
    console.error(`  (${what} still not done after ${CLEANUP_MS / 1_000} s: left behind)`);
  }
}

async function prefill(producer: Producer, topic: string, records: number): Promise<void> {
  const sends: Array<Promise<unknown>> = [];
  for (let start = 0; start < records; start += PREFILL_BATCH) {
    const messages = [];
    for (let i = start; i < Math.min(records, start + PREFILL_BATCH); i++) {
      messages.push({ key: `key-${i}`, value: VALUE, partition: i % PARTITIONS });
    }
    sends.push(producer.send({ topic, acks: -1, messages }));
  }
  await Promise.all(sends);
}

/** Copies in sends under MAX_SEND_BYTES (key, value and headers, and ~70 bytes of record framing each). */
function inSends(copies: OutgoingMessage[]): OutgoingMessage[][] {
  const sends: OutgoingMessage[][] = [];
  let current: OutgoingMessage[] = [];
  let bytes = 0;
  for (const copy of copies) {
    let size = 70 + (copy.key?.length ?? 0) + (copy.value?.length ?? 0);
    for (const [name, value] of Object.entries(copy.headers)) size += name.length + String(value).length;
    if (current.length > 0 && bytes + size > MAX_SEND_BYTES) {
      sends.push(current);
      current = [];
      bytes = 0;
    }
    current.push(copy);
    bytes += size;
  }
  if (current.length > 0) sends.push(current);
  return sends;
}

/**
 * The Confluent client's KafkaJS API, for line 1 only: the kit's Confluent consumer turns
 * autoCommit off, and this line wants the client's default. Resolved from test/confluent, where
 * scripts/confluent.sh links the client and the kit imports it from.
 */
interface ConfluentModule {
  KafkaJS: {
    Kafka: new (config: {
      kafkaJS: { clientId: string; brokers: string[]; logLevel: number };
    }) => { consumer(config: { kafkaJS: Record<string, unknown> }): KitConsumer };
    logLevel: { NOTHING: number };
  };
}

let confluent: InstanceType<ConfluentModule['KafkaJS']['Kafka']> | undefined;

/** Line 1's consumer: the client's own autoCommit (KafkaJS: the run's default, on). */
function autoCommitConsumer(client: Kit, groupId: string): KitConsumer {
  if (client.client === 'kafkajs') return client.consumer(groupId, SETTINGS);
  if (!confluent) {
    const load = createRequire(join(__dirname, '../../test/confluent/confluent-kit.ts'));
    const { KafkaJS: api } = load('@confluentinc/kafka-javascript') as ConfluentModule;
    confluent = new api.Kafka({
      kafkaJS: { clientId: 'bench', brokers: BROKERS, logLevel: api.logLevel.NOTHING },
    });
  }
  const { fromBeginning, ...timings } = SETTINGS;
  return confluent.consumer({ kafkaJS: { groupId, fromBeginning, ...timings } });
}

async function runLine(client: Kit, line: Line, round: number): Promise<Run> {
  const records = RECORDS;
  const name = `bench-throughput-${randomBytes(3).toString('hex')}`;
  const plan = benchPlan(
    name,
    DELAYS,
    { kafka: { partitions: PARTITIONS } },
    line.perKey ? { ordering: 'per-key' } : {},
  );
  const target = plan.targets.kafka as KafkaPlan;
  const retryTopic = target.levels[0]?.destination as string;
  // The runtime's main consumer joins the plan's group; the raw lines a group of their own name.
  const groupId = line.kind === 'runtime' ? target.consumerGroup : `${name}.raw`;
  const run: Run = {
    round,
    status: 'error',
    records,
    done: 0,
    ms: Number.NaN,
    recordsPerSecond: Number.NaN,
    brokerCpuMsPer1000: null,
    failedEvents: 0,
    unexpectedOutcomes: 0,
    committed: null,
    copies: null,
  };

  const admin: Admin = helper.admin();
  const filler = helper.producer({ allowAutoTopicCreation: false });
  let consumer: KitConsumer | undefined;
  let producer: KitProducer | undefined;
  let retry: KafkaRetry | undefined;
  let closeAdmin: (() => Promise<void>) | undefined;
  const progress = new Progress(records);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.all([admin.connect(), filler.connect()]);
    await declareKafkaTopology(admin, plan);
    await prefill(filler, target.sourceTopic, records);

    // Every client of the line is made and connected before the clock starts.
    const kafkajs = client.client === 'kafkajs';
    const subscription = { topics: [target.sourceTopic], ...(kafkajs ? { fromBeginning: true } : {}) };
    // KafkaJS takes autoCommit per run; the kit's Confluent consumer has it off in its config.
    const manualCommit = kafkajs ? { autoCommit: false } : {};
    /** Lines 2 and 3: eachBatch, `work` on each batch, then one commit past it. */
    const batchLine =
      (raw: KitConsumer, work: (partition: number, messages: ConsumedMessage[]) => Promise<void>) =>
      async () => {
        await raw.subscribe(subscription);
        await raw.run({
          ...manualCommit,
          partitionsConsumedConcurrently: CONCURRENT_PARTITIONS,
          eachBatch: async (payload) => {
            const { topic, partition, messages } = payload.batch;
            const last = messages[messages.length - 1];
            if (!last || payload.isStale()) return;
            await work(partition, messages);
            await raw.commitOffsets([{ topic, partition, offset: String(BigInt(last.offset) + 1n) }]);
            for (const message of messages) progress.mark(partition, message.offset);
          },
        });
      };
    let start: () => Promise<void>;
    if (line.kind === 'runtime') {
      const made = client.producer();
      producer = made;
      const main = client.consumer(groupId, SETTINGS);
      const runtimeAdmin = client.admin();
      // run(kafka) makes its own consumer; this one is only connected, for the checks after the line.
      consumer = main;
      await Promise.all([made.connect(), main.connect(), runtimeAdmin.connect()]);
      closeAdmin = () => runtimeAdmin.disconnect();
      const expected = line.fail ? 'retry' : 'success';
      const runtime = createKafkaRetry({
        plan,
        producer: made,
        client: client.client,
        fromBeginning: true,
        meter: undefined,
        ...(line.perKey
          ? {
              admin: runtimeAdmin,
              consumerSettings: { maxWaitTimeInMs: 100, sessionTimeout: 30_000, heartbeatInterval: 1_000 },
            }
          : {}),
        handler: line.fail ? failing : async () => {},
        onEvent: (event) => {
          if (event.type === 'failed') run.failedEvents++;
          if (event.type !== 'handled' || event.role !== 'main') return;
          if (event.outcome !== expected) run.unexpectedOutcomes++;
          progress.mark(event.partition, event.offset);
        },
      });
      retry = runtime;
      start = () => (line.perKey ? runtime.run(client.kafka) : runtime.runMain(main));
    } else if (line.kind === 'raw eachMessage') {
      const raw = autoCommitConsumer(client, groupId);
      consumer = raw;
      await raw.connect();
      start = async () => {
        await raw.subscribe(subscription);
        await raw.run({
          partitionsConsumedConcurrently: CONCURRENT_PARTITIONS,
          eachMessage: async ({ partition, message }) => progress.mark(partition, message.offset),
        });
      };
    } else if (line.kind === 'raw eachBatch') {
      const raw = client.consumer(groupId, SETTINGS);
      consumer = raw;
      await raw.connect();
      start = batchLine(raw, async () => {});
    } else {
      const made = client.producer();
      producer = made;
      const raw = client.consumer(groupId, SETTINGS);
      consumer = raw;
      await Promise.all([made.connect(), raw.connect()]);
      // The Confluent client refuses a per-send acks; its producer has -1 in its config (the kit's).
      const acks = kafkajs ? { acks: -1 } : {};
      start = batchLine(raw, async (partition, messages) => {
        const copies: OutgoingMessage[] = [];
        for (const message of messages) {
          try {
            await failing();
          } catch {
            copies.push({
              key: message.key,
              value: message.value,
              partition,
              headers: { [target.attemptHeader]: '2' },
            });
          }
        }
        // One send per batch; more only past MAX_SEND_BYTES (KafkaJS batches can be ~1 MB).
        // A refused send throws: the client reads the batch again.
        await Promise.all(
          inSends(copies).map((messages) => made.send({ topic: retryTopic, messages, ...acks })),
        );
      });
    }

    const late = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), TIMEOUT_MS);
    });
    const ticksBefore = brokerTicks();
    const started = performance.now();
    // The start is inside the race too: a subscribe or run that hangs counts as a timeout.
    const ended = await Promise.race([start().then(() => progress.done), late]);
    const ticksAfter = brokerTicks();
    run.done = progress.count;
    if (ended === 'timeout') {
      run.status = 'timeout';
    } else {
      run.status = 'ok';
      run.ms = ended - started;
      run.recordsPerSecond = records / (run.ms / 1_000);
      if (ticksBefore !== undefined && ticksAfter !== undefined) {
        const cpuMs = ((ticksAfter - ticksBefore) * 1_000) / CLOCK_TICKS;
        run.brokerCpuMsPer1000 = cpuMs / (records / 1_000);
      }
    }
  } catch (error) {
    run.status = 'error';
    run.done = progress.count;
    // One line, no '|': it goes into a Markdown table cell.
    run.error = (error instanceof Error ? error.message : String(error)).replace(/[|\n]+/g, ' ');
  } finally {
    clearTimeout(timer);
    if (retry) await bounded(retry.stop(), 'stopping the runtime');
    if (closeAdmin) await bounded(closeAdmin(), 'disconnecting the runtime admin');
    if (consumer) await bounded(consumer.disconnect(), 'disconnecting the consumer');
    if (producer) await bounded(producer.disconnect(), 'disconnecting the producer');
    await bounded(filler.disconnect(), 'disconnecting the prefill producer');
  }

  // What the broker holds now, against what the line reported. Line 1's autoCommit commits on its
  // own schedule after the handler ran, so its offsets are not checked.
  if (run.status === 'ok') {
    try {
      if (line.kind !== 'raw eachMessage') {
        const offsets = await admin.fetchOffsets({ groupId, topics: [target.sourceTopic] });
        run.committed = (offsets[0]?.partitions ?? []).reduce(
          (sum, each) => sum + Math.max(0, Number(each.offset)),
          0,
        );
      }
      if (line.fail) {
        const ends = await admin.fetchTopicOffsets(retryTopic);
        run.copies = ends.reduce((sum, each) => sum + Number(each.high) - Number(each.low), 0);
      }
    } catch (error) {
      console.error(`  (checking line ${line.id} failed: ${String(error)})`);
    }
  }
  await bounded(
    admin.deleteTopics({ topics: target.topics.map((spec) => spec.name) }),
    `deleting the topics of ${name}`,
  );
  await bounded(admin.deleteGroups([groupId]), `deleting the group ${groupId}`);
  await bounded(admin.disconnect(), 'disconnecting the admin');
  return run;
}

// --- summary ----------------------------------------------------------------------------------

function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

function spread(values: number[]) {
  const finite = values.filter(Number.isFinite);
  return {
    median: median(finite),
    min: finite.length > 0 ? Math.min(...finite) : Number.NaN,
    max: finite.length > 0 ? Math.max(...finite) : Number.NaN,
  };
}

const whole = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—');
const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '—');

/** What the broker holds against what the line reported: 'ok', or the counts that differ. */
function checked(run: Run): string {
  if (run.status !== 'ok')
    return run.status === 'timeout' ? `timeout (${run.done} done)` : `error: ${run.error}`;
  const wrong: string[] = [];
  if (run.committed !== null && run.committed !== run.records) wrong.push(`committed ${run.committed}`);
  if (run.copies !== null && run.copies !== run.records) wrong.push(`copies ${run.copies}`);
  if (run.unexpectedOutcomes > 0) wrong.push(`${run.unexpectedOutcomes} other outcomes`);
  if (run.failedEvents > 0) wrong.push(`${run.failedEvents} recovered errors`);
  return wrong.length === 0 ? 'ok' : `${wrong.join(', ')} of ${run.records}`;
}

async function main() {
  const client = await kit();
  const loadStart = loadavg();
  const startedAt = new Date().toISOString();
  console.error(
    `client ${KIT_NAME}, ${BROKERS.join(',')}, ${PARTITIONS} partitions, ${RECORDS} records` +
      `, ${ROUNDS} rounds; ` +
      `broker pid ${BROKER_PID ?? 'n/a'}`,
  );
  const runs = new Map<number, Run[]>(LINES.map((line) => [line.id, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const line of LINES) {
      if (ONLY && !ONLY.has(line.id)) continue;
      const run = await runLine(client, line, round);
      runs.get(line.id)?.push(run);
      console.error(
        `round ${round}/${ROUNDS} line ${line.id} (${line.label}): ${run.status === 'ok' ? `${whole(run.recordsPerSecond)} records/s` : run.status} [${checked(run)}]`,
      );
    }
  }
  const loadEnd = loadavg();

  const summaries = LINES.map((line) => {
    const own = runs.get(line.id) ?? [];
    const reference = line.reference === undefined ? undefined : (runs.get(line.reference) ?? []);
    // Each round's ratio against the reference line of the same round.
    const ratios = reference
      ? own.map((run, index) => run.recordsPerSecond / (reference[index]?.recordsPerSecond ?? Number.NaN))
      : [];
    return {
      id: line.id,
      label: line.label,
      fail: line.fail,
      records: RECORDS,
      reference: line.reference ?? null,
      recordsPerSecond: spread(own.map((run) => run.recordsPerSecond)),
      ratio: reference ? spread(ratios) : null,
      ratiosPerRound: ratios,
      brokerCpuMsPer1000: median(own.map((run) => run.brokerCpuMsPer1000 ?? Number.NaN)),
      roundsOk: own.filter((run) => run.status === 'ok').length,
      runs: own,
    };
  });

  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' / ');
  console.log(
    `\nKafka throughput, client ${KIT_NAME}, the runtime from ${BENCH_RUNTIME}, node ${process.version}, ${PARTITIONS} partitions, ${RECORDS} records of ${VALUE.length} bytes per line` +
      ', ' +
      `${ROUNDS} rounds; load average ${load(loadStart)} at the start, ${load(loadEnd)} at the end; ` +
      `broker CPU from pid ${BROKER_PID ?? 'n/a'} (${CLOCK_TICKS} ticks/s)\n`,
  );
  console.log(
    '| # | line | records | records/s (median) | records/s (min–max) | ÷ reference, same round: median (min–max) | broker CPU ms / 1,000 records (median) | rounds ok | checks |',
  );
  console.log('|---:|---|---:|---:|---:|---|---:|---:|---|');
  for (const s of summaries) {
    const ratio = s.ratio
      ? `${fixed(s.ratio.median)}× (${fixed(s.ratio.min)}–${fixed(s.ratio.max)}) ÷ line ${s.reference}`
      : 'reference';
    const cpu = BROKER_PID === undefined ? 'n/a' : fixed(s.brokerCpuMsPer1000, 1);
    const checks = [...new Set(s.runs.map(checked))].join('; ');
    console.log(
      `| ${s.id} | ${s.label} | ${s.records.toLocaleString('en-US')} | ${whole(s.recordsPerSecond.median)} | ${whole(s.recordsPerSecond.min)}–${whole(s.recordsPerSecond.max)} | ${ratio} | ${cpu} | ${s.roundsOk}/${ROUNDS} | ${checks} |`,
    );
  }

  const results = {
    bench: 'kafka-throughput',
    startedAt,
    client: KIT_NAME,
    runtime: BENCH_RUNTIME,
    node: process.version,
    brokers: BROKERS,
    partitions: PARTITIONS,
    records: RECORDS,
    valueBytes: VALUE.length,
    rounds: ROUNDS,
    timeoutSeconds: TIMEOUT_MS / 1_000,
    loadavg: { start: loadStart, end: loadEnd },
    broker: { pid: BROKER_PID ?? null, clockTicksPerSecond: CLOCK_TICKS },
    lines: summaries,
  };
  // NaN is not JSON: it goes out as null.
  const json = JSON.stringify(results, (_key, value) =>
    typeof value === 'number' && !Number.isFinite(value) ? null : value,
  );
  if (process.env.BENCH_JSON) {
    writeFileSync(process.env.BENCH_JSON, `${json}\n`);
    console.log(`\nresults as JSON: ${process.env.BENCH_JSON}`);
  } else {
    console.log(`\n${json}`);
  }
  // A client left behind by a cleanup that hung keeps the process alive: end it once stdout is out.
  if (abandoned > 0) {
    await sleep(100);
    process.stdout.write('', () => process.exit(0));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
