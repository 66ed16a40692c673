import { type Consumer, type ConsumerConfig, Kafka, logLevel } from 'kafkajs';
import type {
  AdminLike,
  ConsumerLike,
  KafkaClient,
  KafkaDeadLetterAdmin,
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
