import { defaultMaxListeners, setMaxListeners } from 'node:events';
import { mathRandom, systemClock } from '../clock';
import { RetryTopologyError } from '../errors';
import { createMetrics, globalMeter } from '../metrics';
import { targetRules } from '../rules';
import { stopTimeoutOf, withinDeadline } from '../stop-deadline';
import { BatchEngine } from './batch-engine';
import { chainAssigner } from './chain-assigner';
import { Chains } from './chains';
import type { ConsumerLike, KafkaLike, ProducerLike } from './contract';
import type { Runtime } from './delivery';
import { KafkaRetryError } from './errors';
import { PartitionGate } from './gate';
import { KAFKA_DEFAULTS, type KafkaRetryOptions, type KafkaRole, type KafkaTestHooks } from './options';
import { Positions } from './positions';

export interface KafkaRetry {
  /**
   * Makes the consumers the plan needs from `kafka` (KafkaJS's `Kafka`, or the Confluent
   * client's `KafkaJS.Kafka`), connects and runs them; `stop` disconnects them. A plan that keeps
   * key order gets one consumer in group `plan.consumerGroup`, with range assignment, on the
   * source topic and every retry topic, so that one member owns each partition's whole chain
   * (docs/kafka.md; needs `admin`). Without key order: a main and a retry consumer, as runMain
   * and runRetry.
   */
  run(kafka: KafkaLike): Promise<void>;
  /**
   * Without key order, wired by hand: runs the main consumer (group `plan.consumerGroup`) on the
   * source topic. Pass a connected consumer; with KafkaJS give it a short `maxWaitTimeInMs` (a
   * held partition resumes on the next fetch).
   */
  runMain(consumer: ConsumerLike): Promise<void>;
  /** Without key order, wired by hand: runs a retry consumer (group `plan.retryConsumerGroup`) on every level's topic. */
  runRetry(consumer: ConsumerLike): Promise<void>;
  /**
   * Aborts in-flight handlers, ends every hold, waits for the batches under way to send and
   * commit, and disconnects the consumers `run` made. Then disconnect those you passed in.
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
 * dead-letter topic, a fetched batch at a time (batch-engine.ts), with per-key order kept when
 * the plan says `park-key`: one consumer owns each chain (chains.ts), docs/kafka.md.
 */
export function createKafkaRetry(options: KafkaRetryOptions): KafkaRetry {
  return createKafkaRetryWithHooks(options);
}

/**
 * createKafkaRetry with the fault tests' hooks (KafkaTestHooks). Not exported by the entry
 * point: the tests and benchmarks import it from this file.
 */
export function createKafkaRetryWithHooks(options: KafkaRetryOptions & KafkaTestHooks): KafkaRetry {
  const rules = targetRules(options.plan, 'kafka');
  const client = options.client ?? KAFKA_DEFAULTS.client;
  const clock = options.clock ?? systemClock;
  const meter = options.meter ?? globalMeter();
  const labels = { policy: options.plan.policy, target: 'kafka' };
  const parked = meter?.createCounter('retry_topology.kafka.parked', {
    description: 'Records parked into the retry chain behind an older record of their key',
  });
  const stopping = new AbortController();
  const abandoning = new AbortController();
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
  // Every handler in flight may listen on the stop signal (fetch, a driver): up to `concurrency`
  // per consumer, two consumers without key order. Not a leak, so Node's warning at ten would
  // be a false alarm.
  setMaxListeners(2 * concurrency + defaultMaxListeners, stopping.signal);
  const stopTimeoutMs = stopTimeoutOf(options.stopTimeoutMs);
  refuseOwnSettings(options.consumerSettings);
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
    stopping: stopping.signal,
    abandoned: abandoning.signal,
    emit: (event) => options.onEvent?.(event),
    listening: options.onEvent !== undefined,
    producerBroken: (error, used) => producerBroken(error, used),
    afterCopyProduced: options.afterCopyProduced,
  };
  const levelOf = new Map(rules.levels.map((level) => [level.destination, level]));
  const retryTopics = [...levelOf.keys()];
  const fromBeginning = options.fromBeginning ?? KAFKA_DEFAULTS.fromBeginning;
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

  /** runMain and runRetry: one consumer, one role, on the batched engine. */
  async function runRole(
    consumer: ConsumerLike,
    role: KafkaRole,
    topics: string[],
    start: boolean,
    positions?: Positions,
  ) {
    if (rules.ordering === 'park-key') {
      throw new KafkaRetryError(
        'per-key-needs-run',
        `the plan for "${options.plan.policy}" keeps key order (park-key): one consumer reads the whole chain, use run(kafka)`,
      );
    }
    await consumer.subscribe({ topics, ...(client === 'kafkajs' ? { fromBeginning: start } : {}) });
    await runBatches(consumer, positions ?? new Positions(consumer, client), role, topics.length, undefined);
  }

  /**
   * The batched engine on a subscribed consumer, reading `topicCount` topics of the chain.
   * `positions` owns the consumer's positions; it hears of each new assignment from the
   * Confluent client's rebalance callback (consumers `run` makes) or KafkaJS's GROUP_JOIN.
   */
  async function runBatches(
    consumer: ConsumerLike,
    positions: Positions,
    role: KafkaRole | 'chain',
    topicCount: number,
    chains: Chains | undefined,
  ) {
    const gate = gateOf(positions);
    if (client === 'kafkajs' && consumer.on && consumer.events) {
      consumer.on(consumer.events.GROUP_JOIN, (event) => {
        const assignment = joinedPartitions(event);
        positions.assigned(assignment);
        void chains?.assigned(assignment);
      });
    }
    const engine = new BatchEngine({
      rt: runtime,
      positions,
      role,
      levels: role === 'main' ? new Map() : levelOf,
      gate,
      concurrency,
      ...(chains ? { chains } : {}),
    });
    engines.push(engine);
    // Every topic of the chain has the source's partition count.
    const assignable = topicCount * (rules.topics[0]?.partitions ?? 1);
    await consumer.run({
      ...(client === 'kafkajs' ? { autoCommit: false } : {}),
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently:
        options.partitionsConsumedConcurrently ??
        Math.min(assignable, KAFKA_DEFAULTS.maxPartitionsConsumedConcurrently),
      eachBatch: (payload) => engine.onBatch(payload),
    });
  }

  function gateOf(positions: Positions): PartitionGate {
    const gate = new PartitionGate(positions, clock, backoff);
    gates.push(gate);
    return gate;
  }

  async function run(kafka: KafkaLike) {
    if (rules.ordering !== 'park-key') {
      // Without key order the two groups stay as runMain and runRetry have them.
      const made = (groupId: string, start: boolean) => {
        let positions: Positions | undefined;
        const consumer = consumerOf(kafka, groupId, start, {
          confluent: {
            rebalance_cb: (error: { code: number }, assignment: Assignment) => {
              if (error.code === ASSIGN_PARTITIONS) positions?.assigned(assignment);
              else positions?.revoked();
            },
          },
        });
        positions = new Positions(consumer, client);
        return { consumer, positions };
      };
      const main = made(rules.consumerGroup, fromBeginning);
      const retrying = made(rules.retryConsumerGroup, true);
      await Promise.all([main.consumer.connect(), retrying.consumer.connect()]);
      await runRole(main.consumer, 'main', [rules.sourceTopic], fromBeginning, main.positions);
      await runRole(retrying.consumer, 'retry', retryTopics, true, retrying.positions);
      return;
    }
    if (!options.admin) {
      throw new KafkaRetryError(
        'per-key-needs-admin',
        `the plan for "${options.plan.policy}" keeps key order (park-key): pass admin`,
      );
    }
    // The consumer is made before its chains: the Confluent client calls back with assignments.
    let chains: Chains | undefined;
    let positions: Positions | undefined;
    const consumer = consumerOf(kafka, rules.consumerGroup, fromBeginning, {
      // KafkaJS has no range assigner of its own.
      kafkajs: { partitionAssigners: [chainAssigner] },
      confluent: {
        kafkaJS: { partitionAssigners: ['range'] },
        // librdkafka's rebalance callback, awaited before the assignment is made.
        rebalance_cb: async (error: { code: number }, assignment: Assignment) => {
          if (error.code === ASSIGN_PARTITIONS) {
            positions?.assigned(assignment);
            await chains?.assigned(assignment);
          } else {
            positions?.revoked();
            chains?.revoked();
          }
        },
      },
    });
    positions = new Positions(consumer, client);
    chains = new Chains({
      positions,
      admin: options.admin,
      group: rules.consumerGroup,
      formerGroup: rules.retryConsumerGroup,
      sourceTopic: rules.sourceTopic,
      retryTopics,
      emit: runtime.emit,
    });
    await consumer.connect();
    if (client === 'kafkajs') {
      await consumer.subscribe({ topics: [rules.sourceTopic], fromBeginning });
      // Copies may be made before a member ever commits on their partition.
      await consumer.subscribe({ topics: retryTopics, fromBeginning: true });
    } else {
      await consumer.subscribe({ topics: [rules.sourceTopic, ...retryTopics] });
    }
    await runBatches(consumer, positions, 'chain', retryTopics.length + 1, chains);
  }

  /**
   * A consumer for run(kafka) in `groupId`, in the client's own config shape, with `extra` per
   * client, disconnected when the runtime stops; KafkaJS's crashes are watched.
   */
  function consumerOf(
    kafka: KafkaLike,
    groupId: string,
    start: boolean,
    extra: { kafkajs?: object; confluent?: { kafkaJS?: object } & Record<string, unknown> } = {},
  ): ConsumerLike {
    const settings = { ...KAFKA_DEFAULTS.chainConsumer, ...options.consumerSettings };
    let consumer: ConsumerLike;
    if (client === 'kafkajs') consumer = kafka.consumer({ groupId, ...extra.kafkajs, ...settings });
    else {
      const { kafkaJS, ...top } = extra.confluent ?? {};
      // The Confluent client takes these per consumer, never per call (contract.ts).
      consumer = kafka.consumer({
        kafkaJS: { groupId, autoCommit: false, fromBeginning: start, ...kafkaJS, ...settings },
        // The plan's poll interval, which its in-memory retries were checked against; a
        // `rebalanceTimeout` in consumerSettings takes its place, as the client has it.
        'max.poll.interval.ms': rules.maxPollIntervalMs,
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

  /** The producer being replaced, while it is: every batch whose copies it refused waits for it. */
  let replacing: Promise<void> | undefined;

  /**
   * The producer `used` can never send again. With replaceProducer the runtime goes on with a
   * new one; without it (or when that fails) it stops, and `closed` rejects: loud, never a loop
   * of copies that can never be sent. Nothing was committed past the refused copies.
   */
  function producerBroken(error: KafkaRetryError, used: ProducerLike): Promise<void> {
    // Refused by a producer already replaced: send again with the new one.
    if (used !== runtime.producer) return Promise.resolve();
    if (replacing) return replacing;
    replacing = (async () => {
      runtime.emit({
        type: 'failed',
        role: 'main',
        topic: rules.sourceTopic,
        partition: -1,
        offset: '-1',
        error,
      });
      if (stopping.signal.aborted) return;
      if (!options.replaceProducer) return giveUp(error);
      try {
        runtime.producer = await options.replaceProducer(used, error);
      } catch (cause) {
        giveUp(
          new KafkaRetryError('producer-broken', `replaceProducer failed after: ${error.message}`, { cause }),
        );
      }
    })().finally(() => {
      replacing = undefined;
    });
    return replacing;
  }

  /** Stops the runtime (not awaited: the batch that asks is one stop waits for) and rejects `closed`. */
  function giveUp(error: KafkaRetryError): void {
    crash(error);
    void stop();
  }

  async function stop(): Promise<void> {
    stopping.abort(new RetryTopologyError('consumer-stopped', 'the Kafka retry runtime is stopping'));
    for (const gate of gates) gate.stop();
    // The batches under way send and commit what they carried out before the consumers go,
    // until the deadline; after it they leave the rest uncommitted.
    await withinDeadline(Promise.all(engines.map((engine) => engine.idle())), stopTimeoutMs);
    abandoning.abort();
    await Promise.all(made.map((consumer) => consumer.disconnect().catch(() => undefined)));
    close();
  }

  return {
    closed,
    run,
    runMain: (consumer) => runRole(consumer, 'main', [rules.sourceTopic], fromBeginning),
    // A retry group with no committed offset yet must start at the beginning: the first copies
    // may be produced before it ever joins.
    runRetry: (consumer) => runRole(consumer, 'retry', retryTopics, true),
    stop,
  };
}

/**
 * Consumer settings the runtime's correctness depends on, which `consumerSettings` may not set:
 * the engine commits itself (auto-commit would commit records still in flight or not yet copied,
 * and the chain scan reads commits as the truth), the group and its range assignment make one
 * member own each chain, the rebalance callback reads each new assignment's chain, and the
 * start position has its own option.
 */
const OWN_SETTINGS: Record<string, string> = {
  groupId: 'the plan names the groups (consumerGroup, retryConsumerGroup)',
  autoCommit: 'the runtime commits each batch itself, only past records it carried out',
  autoCommitInterval: 'the runtime commits each batch itself',
  autoCommitThreshold: 'the runtime commits each batch itself',
  'enable.auto.commit': 'the runtime commits each batch itself',
  partitionAssigners: 'per-key order needs range assignment, which the runtime sets',
  'partition.assignment.strategy': 'per-key order needs range assignment, which the runtime sets',
  rebalance_cb: 'the runtime reads each new assignment’s chain in its own rebalance callback',
  fromBeginning: 'use the fromBeginning option: the retry consumer must always start at the beginning',
};

function refuseOwnSettings(settings: Record<string, unknown> | undefined): void {
  for (const key of Object.keys(settings ?? {})) {
    const why = OWN_SETTINGS[key];
    if (why) {
      throw new KafkaRetryError('invalid-option', `consumerSettings may not set ${key}: ${why}`);
    }
  }
}

type Assignment = Array<{ topic: string; partition: number }>;

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
