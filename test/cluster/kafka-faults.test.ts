import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Consumer, type ConsumerConfig, Kafka, logLevel, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../policy';
import { PermanentError, TransientError } from '../../runtime';
import {
  declareKafkaTopology,
  KAFKA_PRODUCER_SETTINGS,
  type KafkaLike,
  type KafkaRetry,
} from '../../runtime/kafka';
import { createKafkaRetryWithHooks } from '../../runtime/kafka/kafka-retry';
import {
  behaviour,
  type FaultWindow,
  judgeWaits,
  Ledger,
  LIVENESS_MS,
  mostDeliveriesAllowed,
} from './ledger';
import {
  cluster,
  clusterPlan,
  faultRandom,
  KAFKA_BROKERS,
  kafkaNodeOf,
  restoreCluster,
  sleep,
  stats,
  uniqueName,
  waitFor,
} from './support';

/**
 * The Kafka retry chain on a three-broker cluster (replication factor 3, min.insync.replicas 2,
 * acks all, idempotent producers) while brokers die, in two modes: without key order (the main
 * and the retry consumer groups), and with per-key order on one consumer per chain (run(kafka)),
 * where 24 keys share the records and each key's order is checked too. In both modes, after the
 * last kill, every source partition must be consumed again.
 *
 * The rest, per mode: the Kafka retry chain on a three-broker cluster (replication factor 3, min.insync.replicas 2,
 * acks all, idempotent producers) while brokers die. Three times, at a random moment, while records
 * wait in the retry topics, the broker leading the partition a retry copy was just written to is
 * SIGKILLed between the copy's ack and the commit of its source offset (a copy in flight), and
 * started again. Asserted: every record ends where its kind says (success, or the dead-letter
 * topic with its reason), no wait is shorter than its delay, no record is delivered at one attempt
 * more often than the kills can explain, and every wait ends within the liveness bound (5 min).
 * Measured and reported, never asserted (a loaded 2-core machine moves them by seconds): how late
 * the waits came back, inside and outside the fault windows, and the failover times.
 */

const DELAYS = ['2s', '4s'];
const DELAYS_MS = [2_000, 4_000];
const MAX_ATTEMPTS = 3;
const RATE_PER_SECOND = 10;
const WORK_MS = 15;
const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 3);
/**
 * The lateness budget the report compares waits with (`beyondBudget`), not an assertion. Outside
 * the fault windows: a paused partition resumes on the next fetch, the retry consumer works off
 * what came due meanwhile, and a restarted broker's return moves work around again. Measured with
 * both fault tests and the unit suite at once (load average 18–21 on 2 cores): p99 4.9 s, max
 * 5.1 s; one CI run had 8 waits 8.1–8.8 s late just after a fault window closed, nothing lost.
 */
const LOAD_MARGIN_MS = 8_000;
/**
 * The report's budget for a wait in a fault window, beyond the failover measured in it (new
 * partition leaders, and the consumer groups rejoined after their coordinator moved): the records
 * that came due meanwhile are worked off, and a produce that failed is tried again after the
 * runtime's back-off (up to 5 s).
 */
const CATCH_UP_ALLOWANCE_MS = 20_000;

/** Per-key mode: records share this many keys, so a key has records waiting behind each other. */
const KEYS = 24;

const kafka = new Kafka({
  clientId: 'retry-topology-cluster',
  brokers: KAFKA_BROKERS,
  logLevel: logLevel.NOTHING,
  retry: { retries: 10, initialRetryTime: 200, maxRetryTime: 5_000 },
});
const CONSUMER = { sessionTimeout: 10_000, heartbeatInterval: 1_000, maxWaitTimeInMs: 100 };
/**
 * The settings the README gives users (idempotent, one request in flight, bounded retries), so a
 * send retried across a leader change writes no second record and the run tests what users run.
 */
const producerConfig = KAFKA_PRODUCER_SETTINGS.kafkajs;

interface Round {
  target: string;
  /** The copy acked, its source offset not yet committed, when its partition's leader was killed. */
  copyInFlight: string;
  partitionsLed: number;
  waitingAtKill: number;
  handlersRunningAtKill: number;
  killAt: number;
  /** Kill → every partition of our topics the broker led has another leader (metadata, polled). */
  leaderFailoverMs: number;
  /** Kill → the last rejoin of the main or retry consumer group in the round (its coordinator moved). */
  groupRejoinMs: number;
  /** Kill → the broker is back and every partition of our topics has three in-sync replicas. */
  recoveredMs: number;
}

describe.each([
  { mode: 'without key order', ordering: 'none' },
  { mode: 'per-key order, one consumer per chain', ordering: 'per-key' },
] as const)(
  'Kafka cluster, $mode: retry-topic leaders killed while records wait and copies are in flight',
  ({ ordering }) => {
    const name = uniqueName(ordering === 'none' ? 'kafka' : 'kafka-key');
    const plan: RetryPlan = clusterPlan(name, 'fault-run', DELAYS, 'kafka', ordering);
    const target = plan.targets.kafka;
    if (!target) throw new Error('no kafka target');
    const retryTopics = target.topics.filter((topic) => topic.role === 'retry').map((topic) => topic.name);
    const ourTopics = target.topics.map((topic) => topic.name);
    const { seed, random } = faultRandom();
    const ledger = new Ledger(MAX_ATTEMPTS, DELAYS_MS);
    const admin = kafka.admin();
    const source: Producer = kafka.producer(producerConfig);
    let copies: Producer = kafka.producer(producerConfig);
    const consumers: Consumer[] = [];
    let retry: KafkaRetry | undefined;
    const failures = new Map<string, number>();
    /** Set by a round: what the next copy into `topic` does between its ack and its commit. */
    let armed:
      | {
          topic: string;
          fire: (at: {
            topic: string;
            partition: number;
            offset: string;
            destination: string;
          }) => Promise<void>;
        }
      | undefined;
    /** When the main or the retry consumer (re)joined its group. */
    const joins: number[] = [];
    /** Per source partition, when a record of it was last delivered. */
    const lastDelivery = new Map<number, number>();
    /** Per-key mode: the order of first deliveries and of final outcomes, as sequence numbers. */
    let step = 0;
    const firstDelivered = new Map<string, number>();
    const ended = new Map<string, number>();

    const leaders = async (topics: string[]) => {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      return found.flatMap((topic) =>
        topic.partitions.map((partition) => ({
          topic: topic.name,
          partition: partition.partitionId,
          leader: partition.leader,
          isr: partition.isr,
        })),
      );
    };

    beforeAll(async () => {
      await admin.connect();
      await declareKafkaTopology(admin, plan);
      await Promise.all([source.connect(), copies.connect()]);
    });

    afterAll(async () => {
      // A round that failed between a kill and its start-node leaves the broker down.
      await restoreCluster('kafka');
      await retry?.stop().catch(() => undefined);
      await Promise.allSettled(consumers.map((consumer) => consumer.disconnect()));
      await Promise.allSettled([source.disconnect(), copies.disconnect()]);
      if (process.env.RETRY_TOPOLOGY_KEEP_TOPOLOGY !== '1')
        await admin.deleteTopics({ topics: ourTopics }).catch(() => undefined);
      await admin.disconnect();
    });

    it('plans and creates every topic with three replicas and min.insync.replicas 2', async () => {
      for (const each of await leaders(ourTopics)) expect(each.isr).toHaveLength(3);
      const configs = await admin.describeConfigs({
        includeSynonyms: false,
        resources: ourTopics.map((topic) => ({ type: 2, name: topic, configNames: ['min.insync.replicas'] })),
      });
      for (const resource of configs.resources)
        expect(
          resource.configEntries.find((entry) => entry.configName === 'min.insync.replicas')?.configValue,
        ).toBe('2');
    });

    it('loses nothing through three kills of a retry-topic leader', async () => {
      retry = createKafkaRetryWithHooks({
        plan,
        producer: copies,
        // KafkaJS's idempotent producer can be left unable to send for good by a leader killed
        // mid-request (OUT_OF_ORDER_SEQUENCE_NUMBER on every later send; seen once in CI, for
        // minutes): the runtime asks for a new one, as an application would give it.
        replaceProducer: async (broken) => {
          await (broken as Producer).disconnect().catch(() => undefined);
          copies = kafka.producer(producerConfig);
          await copies.connect();
          return copies;
        },
        fromBeginning: true,
        // Per-key order runs with run(kafka), which reads the chain's ends with the admin.
        ...(ordering === 'per-key' ? { admin, consumerSettings: CONSUMER } : {}),
        failureBackoff: { initialMs: 200, maxMs: 5_000 },
        // One partition at a time cannot keep up with acks-all copies on a loaded two-core machine.
        partitionsConsumedConcurrently: 6,
        afterCopyProduced: async (at) => {
          const trap = armed;
          if (!trap || at.destination !== trap.topic) return;
          armed = undefined;
          await trap.fire(at);
        },
        onEvent: (event) => {
          if (event.type === 'failed')
            failures.set(event.error.code, (failures.get(event.error.code) ?? 0) + 1);
        },
        handler: async (message, { attempt, origin }) => {
          const id = idOf(message.value);
          ledger.delivered(id, attempt);
          lastDelivery.set(origin.partition, Date.now());
          if (!firstDelivered.has(id)) firstDelivered.set(id, step++);
          ledger.running++;
          try {
            await sleep(WORK_MS);
            const outcome = behaviour(ledger.kind(id), attempt);
            if (outcome === 'succeed' || outcome === 'permanent' || attempt >= MAX_ATTEMPTS)
              if (!ended.has(id)) ended.set(id, step++);
            switch (outcome) {
              case 'succeed':
                ledger.succeeded(id);
                return;
              case 'transient':
                ledger.failed(id, attempt);
                throw new TransientError('503 from the dependency');
              case 'permanent':
                throw new PermanentError('invalid currency');
            }
          } finally {
            ledger.running--;
          }
        },
      });
      const deadLetters = kafka.consumer({ groupId: `${name}.dlt-reader`, ...CONSUMER });
      consumers.push(deadLetters);
      if (ordering === 'per-key') {
        // The runtime makes its consumer: the rejoins are seen on the way.
        const joining: KafkaLike = {
          consumer: (config) => {
            const made = kafka.consumer(config as ConsumerConfig);
            made.on(made.events.GROUP_JOIN, () => joins.push(Date.now()));
            return made;
          },
        };
        await deadLetters.connect();
        await retry.run(joining);
      } else {
        const main = kafka.consumer({ groupId: target.consumerGroup, ...CONSUMER });
        const retrying = kafka.consumer({ groupId: target.retryConsumerGroup, ...CONSUMER });
        consumers.push(main, retrying);
        for (const consumer of [main, retrying])
          consumer.on(consumer.events.GROUP_JOIN, () => joins.push(Date.now()));
        await Promise.all(consumers.map((consumer) => consumer.connect()));
        await retry.runMain(main);
        await retry.runRetry(retrying);
      }
      await deadLetters.subscribe({ topics: [target.deadLetterTopic], fromBeginning: true });
      await deadLetters.run({
        eachMessage: async ({ message, partition }) => {
          const reason = message.headers?.['retry-dead-letter-reason']?.toString() ?? 'unknown';
          ledger.deadLettered(idOf(message.value), reason, `${partition}@${message.offset}`);
        },
      });

      const runStarted = Date.now();
      let publishing = true;
      let sent = 0;
      const producing = (async () => {
        const started = Date.now();
        while (publishing) {
          const n = sent++;
          const id = `k-${n}`;
          ledger.publish(id, n);
          for (;;) {
            try {
              await source.send({
                topic: target.sourceTopic,
                acks: -1,
                messages: [
                  { key: ordering === 'per-key' ? `key-${n % KEYS}` : id, value: JSON.stringify({ id }) },
                ],
              });
              break;
            } catch {
              await sleep(500); // every client retry is spent: the cluster is electing; try again
            }
          }
          const due = started + (sent * 1_000) / RATE_PER_SECOND;
          if (due > Date.now()) await sleep(due - Date.now());
        }
      })();

      const rounds: Round[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await sleep(2_000 + random() * 3_000);
        await waitFor(
          () => (ledger.waiting() > 0 ? true : undefined),
          120_000,
          'a record waiting in a retry topic',
        );
        const topic =
          round < retryTopics.length
            ? (retryTopics[round] as string)
            : (retryTopics[Math.floor(random() * retryTopics.length)] as string);
        // The next copy acked into that topic, before its source offset is committed, kills the
        // leader of the partition it was written to: a copy in flight, every round.
        const { killed, led, waitingAtKill, handlersRunningAtKill, killAt, copy } = await new Promise<{
          killed: number;
          led: Awaited<ReturnType<typeof leaders>>;
          waitingAtKill: number;
          handlersRunningAtKill: number;
          killAt: number;
          copy: string;
        }>((resolve, reject) => {
          const timer = setTimeout(() => {
            armed = undefined;
            reject(new Error(`no copy into ${topic} within 180 s`));
          }, 180_000);
          armed = {
            topic,
            fire: async (at) => {
              clearTimeout(timer);
              try {
                const partition = (await leaders([at.destination])).find(
                  (each) => each.partition === at.partition,
                );
                if (!partition || partition.leader < 0) throw new Error(`no leader for ${at.destination}`);
                const led = (await leaders(ourTopics)).filter((each) => each.leader === partition.leader);
                const waitingAtKill = ledger.waiting();
                const handlersRunningAtKill = ledger.running;
                const killAt = Date.now();
                await cluster('kill-node', kafkaNodeOf(partition.leader));
                resolve({
                  killed: partition.leader,
                  led,
                  waitingAtKill,
                  handlersRunningAtKill,
                  killAt,
                  copy: `${at.destination}[${at.partition}], of ${at.topic}[${at.partition}]@${at.offset}`,
                });
              } catch (error) {
                reject(error);
              }
            },
          };
        });
        await waitFor(
          async () => {
            const now = await leaders(led.map((each) => each.topic));
            const moved = led.every((was) => {
              const found = now.find((each) => each.topic === was.topic && each.partition === was.partition);
              return found !== undefined && found.leader >= 0 && found.leader !== killed;
            });
            return moved ? true : undefined;
          },
          120_000,
          `new leaders for the partitions broker ${killed} led`,
          200,
        );
        const leaderFailoverMs = Date.now() - killAt;
        await cluster('start-node', kafkaNodeOf(killed));
        await waitFor(
          async () => ((await leaders(ourTopics)).every((each) => each.isr.length === 3) ? true : undefined),
          180_000,
          'every partition back to three in-sync replicas',
          500,
        );
        rounds.push({
          target: kafkaNodeOf(killed),
          copyInFlight: copy,
          partitionsLed: led.length,
          waitingAtKill,
          handlersRunningAtKill,
          killAt,
          leaderFailoverMs,
          groupRejoinMs: Math.max(0, ...joins.filter((at) => at >= killAt).map((at) => at - killAt)),
          recoveredMs: Date.now() - killAt,
        });
      }

      publishing = false;
      await producing;
      await waitFor(
        () => (ledger.unfinished().length === 0 ? true : undefined),
        LIVENESS_MS,
        'every record to end in success or the dead-letter topic',
        250,
      ).catch(() => undefined);

      const outcomes = ledger.outcomes();
      const waits = ledger.waits();
      const windows: FaultWindow[] = rounds.map((round) => ({
        start: round.killAt,
        end: round.killAt + round.recoveredMs,
        budgetMs: Math.max(round.leaderFailoverMs, round.groupRejoinMs) + CATCH_UP_ALLOWANCE_MS,
      }));
      const { early, stuck, beyondBudget, inWindows, outside } = judgeWaits(waits, windows, LOAD_MARGIN_MS);
      const report = {
        target: 'kafka-4.4.0-cluster',
        seed,
        rounds: rounds.map(({ killAt, ...round }) => ({
          /** Seconds from the start of publishing to the kill. */
          killAtS: (killAt - runStarted) / 1_000,
          ...round,
          /** The retry path's failover: how late the waits running in the fault window came back. */
          retryPathLatenessMs: Math.max(
            0,
            ...waits
              .filter((each) => each.from <= killAt + round.recoveredMs && each.to >= killAt)
              .map((each) => each.latenessMs),
          ),
        })),
        outcomes: { ...outcomes, lost: outcomes.lost.length, wrong: outcomes.wrong.slice(0, 10) },
        runtimeFailures: Object.fromEntries(failures),
        unfinished: ledger
          .unfinished()
          .slice(0, 5)
          .map((id) => ledger.trace(id)),
        waits: {
          all: stats(waits.map((each) => each.latenessMs)),
          inAFaultWindow: stats(inWindows.map((each) => each.latenessMs)),
          outsideFaultWindows: stats(outside.map((each) => each.latenessMs)),
          early: early.slice(0, 5).map((each) => ({ ...each, trace: ledger.trace(each.id) })),
          beyondBudget: {
            count: beyondBudget.length,
            first: beyondBudget
              .slice(0, 10)
              .map((each) => ({ ...each, fromS: (each.from - runStarted) / 1_000 })),
          },
        },
      };
      console.log(`cluster fault report ${JSON.stringify(report)}`);
      const dir = process.env.RETRY_TOPOLOGY_STATE ?? '/tmp/retry-topology';
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'cluster-report-kafka.json'), `${JSON.stringify(report, null, 2)}\n`);

      for (const round of rounds) {
        expect(round.waitingAtKill, 'records were waiting when the broker died').toBeGreaterThan(0);
        expect(round.partitionsLed, 'the broker led partitions of our topics').toBeGreaterThan(0);
      }
      expect(outcomes.lost, `lost records (seed ${seed})`).toEqual([]);
      expect(outcomes.wrong, `records that ended in the wrong place (seed ${seed})`).toEqual([]);
      expect(outcomes.both).toEqual([]);
      expect(outcomes.published).toBeGreaterThan(RATE_PER_SECOND * 30);
      expect(early, 'a retry before its delay').toEqual([]);
      expect(stuck, `waits longer than their delay + ${LIVENESS_MS / 1_000} s`).toEqual([]);
      expect(
        outcomes.duplicates.mostDeliveriesOfOneAttempt,
        'deliveries of one record at one attempt',
      ).toBeLessThanOrEqual(mostDeliveriesAllowed(rounds.length));
      expect(inWindows.length, 'some waits ran through a fault').toBeGreaterThan(0);
      // Consumed again after the last fault: every source partition.
      const recovered = Math.max(...rounds.map((round) => round.killAt + round.recoveredMs));
      for (let partition = 0; partition < (target.topics[0]?.partitions ?? 0); partition++)
        expect(
          lastDelivery.get(partition) ?? 0,
          `partition ${partition} consumed after the last fault`,
        ).toBeGreaterThan(recovered);
      if (ordering === 'per-key') {
        // Each record first delivered only once the key's record before it ended.
        const overtaken: string[] = [];
        for (let n = KEYS; n < sent; n++) {
          const before = ended.get(`k-${n - KEYS}`);
          const first = firstDelivered.get(`k-${n}`);
          if (first !== undefined && (before === undefined || first < before))
            overtaken.push(`k-${n} before k-${n - KEYS} ended`);
        }
        expect(overtaken, `records that overtook their key (seed ${seed})`).toEqual([]);
      }
    });
  },
);

/** The record's id, from its JSON value (per-key records share keys). */
function idOf(value: Buffer | null): string {
  return (JSON.parse(String(value)) as { id: string }).id;
}
