import { randomUUID } from 'node:crypto';
import { mathRandom, systemClock } from '../clock';
import { RetryTopologyError } from '../errors';
import { createMetrics, globalMeter } from '../metrics';
import { targetRules } from '../rules';
import { BatchEngine } from './batch-engine';
import { chainAssigner } from './chain-assigner';
import { ChainView } from './chain-view';
import { Chains } from './chains';
import type { ConsumerLike, KafkaLike } from './contract';
import { type Delivery, deliver, deliverQueued, type Runtime } from './delivery';
import { KafkaRetryError } from './errors';
import { PartitionGate } from './gate';
import { KAFKA_DEFAULTS, type KafkaRetryOptions, type KafkaRole } from './options';
import { type IgnoredMark, KeyOrdering } from './ordering';
import { commit } from './route';

export interface KafkaRetry {
  /**
   * Runs the main consumer (group `plan.consumerGroup`) on the source topic. Pass a connected
   * consumer; with KafkaJS give it a short `maxWaitTimeInMs` (a held partition resumes on the
   * next fetch).
   */
  runMain(consumer: ConsumerLike): Promise<void>;
  /** Runs a retry consumer (group `plan.retryConsumerGroup`) on every level's topic. */
  runRetry(consumer: ConsumerLike): Promise<void>;
  /**
   * Makes the consumers the plan needs from `kafka` (KafkaJS's `Kafka`, or the Confluent
   * client's `KafkaJS.Kafka`), connects and runs them on the batched engine; `stop` disconnects
   * them. A plan that keeps key order gets one consumer in group `plan.consumerGroup`, with range
   * assignment, on the source topic and every retry topic, so that one member owns each
   * partition's whole chain (docs/kafka.md; needs `admin`). Without key order: a main and a retry
   * consumer, as runMain and runRetry.
   */
  run(kafka: KafkaLike): Promise<void>;
  /**
   * Aborts in-flight handlers, ends every hold, waits for the batches under way to send and
   * commit, stops the chain view. Then disconnect the consumers you passed in.
   */
  stop(): Promise<void>;
  /**
   * Resolves once `stop` is done. Rejects (KafkaRetryError `consumer-crashed`) when a consumer
   * the runtime made (run) crashed for good, so that the process can be restarted: KafkaJS
   * restarts a consumer after most errors by itself, and says when it will not.
   */
  readonly closed: Promise<void>;
}

/**
 * The Kafka adapter: the policy's retry behaviour over a retry topic per level and a
 * dead-letter topic, with per-key order kept when the plan says `park-key` (docs/kafka.md).
 * `engine` picks how records are read and carried out: a batch at a time (batch-engine.ts, the
 * default for plans without key order), or one at a time per partition (delivery.ts, park-key).
 */
export function createKafkaRetry(options: KafkaRetryOptions): KafkaRetry {
  const rules = targetRules(options.plan, 'kafka');
  const client = options.client ?? KAFKA_DEFAULTS.client;
  const clock = options.clock ?? systemClock;
  const meter = options.meter ?? globalMeter();
  const labels = { policy: options.plan.policy, target: 'kafka' };
  const parked = meter?.createCounter('retry_topology.kafka.parked', {
    description: 'Records parked into the retry chain behind an older record of their key',
  });
  const queued = meter?.createCounter('retry_topology.kafka.queued', {
    description: 'Source records queued in memory behind an older record of their key',
  });
  const stopping = new AbortController();
  const gates: PartitionGate[] = [];
  const engines: BatchEngine[] = [];
  const concurrency = options.concurrency ?? KAFKA_DEFAULTS.concurrency;
  // NaN or 0 would start no handler at all: every partition would stall without a word.
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new KafkaRetryError(
      'invalid-option',
      `concurrency is ${concurrency}: give a whole number of handler calls at once, 1 or more`,
    );
  }
  // Batched for every plan; a plan that keeps key order runs through run(kafka) then.
  const engine = options.engine ?? 'batched';

  let view: ChainView | undefined;
  if (rules.ordering === 'park-key' && engine === 'per-record') {
    if (!options.admin || !options.viewConsumer) {
      throw new KafkaRetryError(
        'ordering-needs-view',
        `the plan for "${options.plan.policy}" keeps key order (park-key): pass admin and viewConsumer`,
      );
    }
    view = new ChainView({
      admin: options.admin,
      consumer: options.viewConsumer(`${rules.retryConsumerGroup}.chain-view.${randomUUID()}`),
      retryGroup: rules.retryConsumerGroup,
      retryTopics: rules.levels.map((level) => level.destination),
      client,
      clock,
      catchUpTimeoutMs: options.viewCatchUpTimeoutMs ?? KAFKA_DEFAULTS.viewCatchUpTimeoutMs,
    });
  }
  // The view starts with the first consumer run, once, and stops with the runtime.
  let viewStarted: Promise<void> | undefined;
  const startView = () => {
    viewStarted ??= view?.start();
    return viewStarted;
  };

  const backoff = options.failureBackoff ?? KAFKA_DEFAULTS.failureBackoff;
  const runtime: Runtime = {
    rules,
    handler: options.handler,
    producer: options.producer,
    client,
    clock,
    random: options.random ?? mathRandom,
    metrics: createMetrics(labels, meter),
    countParked: (role: KafkaRole) => parked?.add(1, { ...labels, role }),
    countQueued: () => queued?.add(1, labels),
    stopping: stopping.signal,
    emit: (event) => options.onEvent?.(event),
    afterCopyProduced: options.afterCopyProduced,
  };
  if (view && options.admin) {
    // A queued record whose release failed is tried again after the failure back-off's first step.
    runtime.ordering = new KeyOrdering<Delivery>({
      view,
      clock,
      admin: options.admin,
      mainGroup: rules.consumerGroup,
      maxQueued: options.maxQueuedPerPartition ?? KAFKA_DEFAULTS.maxQueuedPerPartition,
      refreshMs: options.viewRefreshMs ?? KAFKA_DEFAULTS.viewRefreshMs,
      release: (record) => deliverQueued(runtime, record),
      settle: (record) => commit(runtime, record),
      retryReleaseInMs: () => backoff.initialMs,
      ignoredMark: (at) => {
        runtime.emit({ type: 'commit-ignored', role: 'main', ...at });
        process.emitWarning(ignoredMarkText(rules.consumerGroup, at), {
          type: 'RetryTopologyWarning',
          code: 'RETRY_TOPOLOGY_KAFKA_COMMIT_IGNORED',
        });
      },
    });
  }
  const levelOf = new Map(rules.levels.map((level) => [level.destination, level]));
  /** Consumers the runtime made (run), disconnected when it stops. */
  const made: ConsumerLike[] = [];
  let close!: () => void;
  let crash!: (error: KafkaRetryError) => void;
  const closed = new Promise<void>((resolve, reject) => {
    close = resolve;
    crash = reject;
  });
  // Rejected with nobody awaiting it is not an unhandled rejection: the `failed` event told.
  closed.catch(() => undefined);

  async function runChain(kafka: KafkaLike) {
    if (engine !== 'batched') {
      throw new KafkaRetryError('invalid-option', "run(kafka) runs the batched engine: set engine 'batched'");
    }
    const retryTopics = [...levelOf.keys()];
    const fromBeginning = options.fromBeginning ?? KAFKA_DEFAULTS.fromBeginning;
    if (rules.ordering !== 'park-key') {
      // Without key order the two groups stay as runMain and runRetry have them.
      const main = consumerOf(kafka, rules.consumerGroup, fromBeginning);
      const retrying = consumerOf(kafka, rules.retryConsumerGroup, true);
      await Promise.all([main.connect(), retrying.connect()]);
      await run(main, 'main', [rules.sourceTopic], fromBeginning);
      await run(retrying, 'retry', retryTopics, true);
      return;
    }
    if (!options.admin) {
      throw new KafkaRetryError(
        'ordering-needs-view',
        `the plan for "${options.plan.policy}" keeps key order (park-key): pass admin`,
      );
    }
    // The consumer is made before its chains: the Confluent client calls back with assignments.
    let chains: Chains | undefined;
    const consumer = consumerOf(kafka, rules.consumerGroup, fromBeginning, {
      // KafkaJS has no range assigner of its own.
      kafkajs: { partitionAssigners: [chainAssigner] },
      confluent: {
        kafkaJS: { partitionAssigners: ['range'] },
        // librdkafka's rebalance callback, awaited before the assignment is made.
        rebalance_cb: async (
          error: { code: number },
          assignment: Array<{ topic: string; partition: number }>,
        ) => {
          if (error.code === ASSIGN_PARTITIONS) await chains?.assigned(assignment);
          else chains?.revoked();
        },
      },
    });
    const gate = new PartitionGate(consumer, clock, backoff);
    gates.push(gate);
    chains = new Chains({
      consumer,
      client,
      admin: options.admin,
      group: rules.consumerGroup,
      formerGroup: rules.retryConsumerGroup,
      sourceTopic: rules.sourceTopic,
      retryTopics,
      emit: runtime.emit,
    });
    await consumer.connect();
    if (client === 'kafkajs' && consumer.on && consumer.events) {
      consumer.on(consumer.events.GROUP_JOIN, (event) => {
        void chains?.assigned(joinedPartitions(event));
      });
      await consumer.subscribe({ topics: [rules.sourceTopic], fromBeginning });
      // Copies may be made before a member ever commits on their partition.
      await consumer.subscribe({ topics: retryTopics, fromBeginning: true });
    } else {
      await consumer.subscribe({ topics: [rules.sourceTopic, ...retryTopics] });
    }
    const chained = new BatchEngine({
      rt: runtime,
      consumer,
      role: 'chain',
      levels: levelOf,
      gate,
      concurrency,
      chains,
    });
    engines.push(chained);
    const assignable = (retryTopics.length + 1) * (rules.topics[0]?.partitions ?? 1);
    await consumer.run({
      ...(client === 'kafkajs' ? { autoCommit: false } : {}),
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently:
        options.partitionsConsumedConcurrently ??
        Math.min(assignable, KAFKA_DEFAULTS.maxPartitionsConsumedConcurrently),
      eachBatch: (payload) => chained.onBatch(payload),
    });
  }

  async function run(consumer: ConsumerLike, role: KafkaRole, topics: string[], fromBeginning: boolean) {
    if (engine === 'batched' && rules.ordering === 'park-key') {
      throw new KafkaRetryError(
        'batched-per-key',
        `the plan for "${options.plan.policy}" keeps key order (park-key): on the batched engine one consumer reads the whole chain, use run(kafka)`,
      );
    }
    await startView();
    const gate = new PartitionGate(consumer, clock, backoff);
    gates.push(gate);
    // The Confluent client has `on` and `events` too, but they throw "Not implemented" (1.10.1).
    if (role === 'main' && client === 'kafkajs' && consumer.on && consumer.events) {
      consumer.on(consumer.events.GROUP_JOIN, (event) =>
        runtime.ordering?.assigned(assignedPartitions(event, rules.sourceTopic)),
      );
    }
    await consumer.subscribe({ topics, ...(client === 'kafkajs' ? { fromBeginning } : {}) });
    // Every topic of the chain has the source's partition count.
    const assignable = topics.length * (rules.topics[0]?.partitions ?? 1);
    const partitionsConsumedConcurrently =
      options.partitionsConsumedConcurrently ??
      Math.min(assignable, KAFKA_DEFAULTS.maxPartitionsConsumedConcurrently);
    if (engine === 'batched') {
      const batched = new BatchEngine({
        rt: runtime,
        consumer,
        role,
        levels: role === 'retry' ? levelOf : new Map(),
        gate,
        concurrency,
      });
      engines.push(batched);
      await consumer.run({
        ...(client === 'kafkajs' ? { autoCommit: false } : {}),
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently,
        eachBatch: (payload) => batched.onBatch(payload),
      });
      return;
    }
    await consumer.run({
      ...(client === 'kafkajs' ? { autoCommit: false } : {}),
      partitionsConsumedConcurrently,
      eachMessage: async ({ topic, partition, message }) => {
        const level = levelOf.get(topic);
        const delivery: Delivery = {
          role,
          consumer,
          gate,
          topic,
          partition,
          message,
          ...(role === 'retry' && level ? { level } : {}),
        };
        await deliver(runtime, delivery);
      },
    });
  }

  /**
   * A consumer for run(kafka) in `groupId`, in the client's own config shape, with `extra` per
   * client, disconnected when the runtime stops; KafkaJS's crashes are watched.
   */
  function consumerOf(
    kafka: KafkaLike,
    groupId: string,
    fromBeginning: boolean,
    extra: { kafkajs?: object; confluent?: { kafkaJS?: object } & Record<string, unknown> } = {},
  ): ConsumerLike {
    const settings = { ...KAFKA_DEFAULTS.chainConsumer, ...options.consumerSettings };
    let consumer: ConsumerLike;
    if (client === 'kafkajs') consumer = kafka.consumer({ groupId, ...extra.kafkajs, ...settings });
    else {
      const { kafkaJS, ...top } = extra.confluent ?? {};
      // The Confluent client takes these per consumer, never per call (contract.ts).
      consumer = kafka.consumer({
        kafkaJS: { groupId, autoCommit: false, fromBeginning, ...kafkaJS, ...settings },
        ...top,
      });
    }
    made.push(consumer);
    // The Confluent client's `events` and `on` throw "Not implemented" (1.10.1): KafkaJS only.
    if (client === 'kafkajs') {
      const crashed = consumer.events?.CRASH;
      if (crashed && consumer.on) consumer.on(crashed, (event) => onCrash(groupId, event));
    }
    return consumer;
  }

  /** KafkaJS's CRASH: reported; when KafkaJS will not restart the consumer, `closed` rejects. */
  function onCrash(groupId: string, event: unknown) {
    const payload = (event as { payload?: { error?: unknown; restart?: boolean } })?.payload;
    const restart = payload?.restart === true;
    const error = new KafkaRetryError(
      'consumer-crashed',
      `the consumer of group ${groupId} crashed${restart ? '; KafkaJS restarts it' : ', and KafkaJS will not restart it: restart the process'}`,
      { cause: payload?.error },
    );
    runtime.emit({
      type: 'failed',
      role: 'main',
      topic: rules.sourceTopic,
      partition: -1,
      offset: '-1',
      error,
    });
    if (!restart && !stopping.signal.aborted) crash(error);
  }

  return {
    closed,
    runMain: (consumer) =>
      run(consumer, 'main', [rules.sourceTopic], options.fromBeginning ?? KAFKA_DEFAULTS.fromBeginning),
    // A retry group with no committed offset yet must start at the beginning: the first copies
    // may be produced before it ever joins.
    runRetry: (consumer) => run(consumer, 'retry', [...levelOf.keys()], true),
    run: runChain,
    async stop() {
      stopping.abort(new RetryTopologyError('consumer-stopped', 'the Kafka retry runtime is stopping'));
      for (const gate of gates) gate.stop();
      // The batches under way send and commit what they carried out before the caller disconnects.
      await Promise.all(engines.map((engine) => engine.idle()));
      await Promise.all(made.map((consumer) => consumer.disconnect().catch(() => undefined)));
      close();
      runtime.ordering?.stop();
      if (viewStarted) {
        await viewStarted.catch(() => undefined);
        await view?.stop();
      }
    },
  };
}

/** librdkafka's code for "partitions assigned" in a rebalance callback (RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS). */
const ASSIGN_PARTITIONS = -175;

/** Every partition in a KafkaJS GROUP_JOIN event's member assignment. */
function joinedPartitions(event: unknown): Array<{ topic: string; partition: number }> {
  const assignment = (event as { payload?: { memberAssignment?: Record<string, number[]> } })?.payload
    ?.memberAssignment;
  return Object.entries(assignment ?? {}).flatMap(([topic, partitions]) =>
    partitions.map((partition) => ({ topic, partition })),
  );
}

/** The source partitions in a KafkaJS GROUP_JOIN event's member assignment, when it has one. */
function assignedPartitions(event: unknown, sourceTopic: string): number[] | undefined {
  const assignment = (event as { payload?: { memberAssignment?: Record<string, number[]> } })?.payload
    ?.memberAssignment;
  const partitions = assignment?.[sourceTopic];
  return Array.isArray(partitions) ? partitions : assignment ? [] : undefined;
}

const IGNORED_BECAUSE: Record<IgnoredMark['reason'], string> = {
  'not-a-mark': 'not written by this runtime',
  'other-offset': 'written by this runtime for another offset (a mirrored or rewritten commit)',
  damaged: 'damaged',
  'past-log-end': 'it lists records past the end of the log',
};

/** One line for the operator: whose commit, what it carried, and what happens now. */
function ignoredMarkText(group: string, at: IgnoredMark): string {
  const metadata = at.metadata.length > 80 ? `${at.metadata.slice(0, 80)}…` : at.metadata;
  return (
    `group ${group}: the commit on ${at.topic}[${at.partition}] at offset ${at.offset} has metadata ` +
    `${JSON.stringify(metadata)}, ${IGNORED_BECAUSE[at.reason]}; every record from offset ${at.offset} ` +
    'is handled again (some may run twice)'
  );
}
