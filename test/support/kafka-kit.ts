import { type Consumer, type ConsumerConfig, Kafka, logLevel } from 'kafkajs';
import type {
  AdminLike,
  ConsumerLike,
  KafkaClient,
  KafkaDeadLetterAdmin,
  KafkaEngine,
  KafkaLike,
  ProducerLike,
} from '../../runtime/kafka';
import { KAFKA_PRODUCER_SETTINGS } from '../../runtime/kafka';
import { chainAssigner } from '../../runtime/kafka/chain-assigner';

/**
 * The Kafka client the runtime is run with in the tests and the bench: `kafkajs` (default) or
 * `@confluentinc/kafka-javascript` (KAFKA_CLIENT=confluent), built by scripts/confluent.sh into
 * ~/.cache/retry-topology and linked into test/confluent/node_modules. Each kit makes the
 * clients the way docs/kafka.md tells users to.
 */
export type KitName = KafkaClient;

export const KIT_NAME: KitName = process.env.KAFKA_CLIENT === 'confluent' ? 'confluent' : 'kafkajs';
export const BROKERS = [process.env.KAFKA_BOOTSTRAP ?? '127.0.0.1:9092'];

/**
 * The engine the runtime runs on in the integration tests and their worker processes:
 * RETRY_TOPOLOGY_KAFKA_ENGINE=batched or =per-record runs the same files with `engine` set to
 * it (tests of per-key order are skipped then: see describePerKey), else the runtime's default
 * (batched, per-record for park-key plans).
 */
export const KAFKA_ENGINE: KafkaEngine | undefined = engineFrom(process.env.RETRY_TOPOLOGY_KAFKA_ENGINE);

function engineFrom(value: string | undefined): KafkaEngine | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'batched' || value === 'per-record') return value;
  throw new Error(`RETRY_TOPOLOGY_KAFKA_ENGINE is "${value}": use batched or per-record, or leave it unset`);
}

/** The runtime option for KAFKA_ENGINE: `{ engine }` when set, else nothing (the default). */
export const ENGINE_OPTION: { engine?: KafkaEngine } = KAFKA_ENGINE ? { engine: KAFKA_ENGINE } : {};

/**
 * The engine for a runtime wired by hand (runMain and runRetry): KAFKA_ENGINE when set; else,
 * for a plan that keeps key order, the per-record engine, the only one that runs it that way
 * (the batched engine runs it through run(kafka)); else the default.
 */
export function handWiredEngine(ordering: string | undefined): { engine?: KafkaEngine } {
  if (KAFKA_ENGINE) return { engine: KAFKA_ENGINE };
  return ordering === 'park-key' ? { engine: 'per-record' } : {};
}

export interface ConsumerSettings {
  maxWaitTimeInMs?: number;
  sessionTimeout?: number;
  rebalanceTimeout?: number;
  heartbeatInterval?: number;
  /** Where a group with no commit starts (the runtime's retry and view consumers need true). */
  fromBeginning?: boolean;
  /** Called on every group join (KafkaJS GROUP_JOIN; Confluent: a partition assignment). */
  onJoin?: () => void;
  /** Called when the member is kicked out or its group rebalances against it. */
  onTrouble?: (what: string) => void;
  /**
   * Range assignment, so that one member holds partition p of every topic it reads (KafkaJS:
   * runtime/kafka/chain-assigner.ts; Confluent: librdkafka's `range`).
   */
  chainAssignment?: boolean;
}

/** The timings of `settings` alone, as run(kafka)'s `consumerSettings` takes them. */
export function timingsOf(settings: ConsumerSettings): Record<string, number> {
  const {
    onJoin: _join,
    onTrouble: _trouble,
    fromBeginning: _start,
    chainAssignment: _range,
    ...timings
  } = settings;
  return { ...timings };
}

export type KitConsumer = ConsumerLike & Required<Pick<ConsumerLike, 'connect' | 'disconnect'>>;
export type KitProducer = ProducerLike & { connect(): Promise<void>; disconnect(): Promise<void> };
/** What the runtime takes, and what the dead-letter commands take besides (deleteGroups). */
export type KitAdmin = AdminLike &
  Pick<KafkaDeadLetterAdmin, 'deleteGroups'> & {
    connect(): Promise<void>;
    disconnect(): Promise<void>;
  };

export interface Kit {
  client: KafkaClient;
  /** The client's `Kafka`, for run(kafka), which makes its consumer itself. */
  kafka: KafkaLike;
  admin(): KitAdmin;
  producer(): KitProducer;
  consumer(groupId: string, settings?: ConsumerSettings): KitConsumer;
}

/**
 * Consumer settings for tests. A short fetch wait, because a held partition resumes on the next
 * fetch; a 10 s session, so a loaded 2-core machine does not drop a member by accident.
 */
export const FAST: ConsumerSettings = {
  maxWaitTimeInMs: 100,
  sessionTimeout: 10_000,
  heartbeatInterval: 500,
};

export function kafkaJsKit(): Kit {
  const kafka = new Kafka({ clientId: 'retry-topology-it', brokers: BROKERS, logLevel: logLevel.NOTHING });
  return {
    client: 'kafkajs',
    kafka,
    admin: () => kafka.admin(),
    producer: () => kafka.producer(KAFKA_PRODUCER_SETTINGS.kafkajs),
    consumer: (groupId, settings = {}) => {
      const { onJoin, onTrouble, fromBeginning: _start, chainAssignment, ...config } = settings;
      const consumer: Consumer = kafka.consumer({
        groupId,
        ...(config as Partial<ConsumerConfig>),
        ...(chainAssignment ? { partitionAssigners: [chainAssigner] } : {}),
      });
      if (onJoin) consumer.on(consumer.events.GROUP_JOIN, () => onJoin());
      if (onTrouble) {
        consumer.on(consumer.events.REBALANCING, () => onTrouble('rebalancing'));
        consumer.on(consumer.events.CRASH, () => onTrouble('crash'));
      }
      return consumer;
    },
  };
}

let loaded: Promise<Kit> | undefined;

/** The kit KAFKA_CLIENT names. The Confluent one loads the native client on first use. */
export function kit(): Promise<Kit> {
  loaded ??= KIT_NAME === 'kafkajs' ? Promise.resolve(kafkaJsKit()) : loadConfluentKit();
  return loaded;
}

async function loadConfluentKit(): Promise<Kit> {
  // A path the compiler does not follow: test/confluent/ is type-checked on its own, against
  // the real types of the client scripts/confluent.sh builds and links there.
  const where = '../confluent/confluent-kit';
  const { confluentKit } = (await import(where)) as { confluentKit: () => Promise<Kit> };
  return confluentKit().catch((cause: unknown) => {
    throw new Error('the Confluent client is not built: run `bash scripts/confluent.sh`', { cause });
  });
}
