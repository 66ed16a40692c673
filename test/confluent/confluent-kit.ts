/**
 * The test kit for `@confluentinc/kafka-javascript` (its KafkaJS API). scripts/confluent.sh
 * builds the client outside the project's node_modules and links it into
 * test/confluent/node_modules, and scripts/test.sh type-checks this folder on its own
 * (test/confluent/tsconfig.json) against the client's real type definitions: the assignments to
 * the runtime's contract types below fail to compile if the client drifts.
 */
import type { KafkaJS } from '@confluentinc/kafka-javascript';
import type {
  AdminLike,
  ConsumerLike,
  EachBatchPayloadLike,
  KafkaLike,
  ProducerLike,
} from '../../runtime/kafka';
import { KAFKA_PRODUCER_SETTINGS } from '../../runtime/kafka';
import type { ConsumerSettings, Kit, KitAdmin, KitConsumer, KitProducer } from '../support/kafka-kit';
import { BROKERS } from '../support/kafka-kit';

// The contract, checked by the compiler against the client's own types.
export const asConsumer = (consumer: KafkaJS.Consumer): ConsumerLike => consumer;
export const asProducer = (producer: KafkaJS.Producer): ProducerLike => producer;
export const asAdmin = (admin: KafkaJS.Admin): AdminLike => admin;
/** What the client hands to `eachBatch` is what the batched engine reads. */
export const asBatch = (payload: KafkaJS.EachBatchPayload): EachBatchPayloadLike => payload;
/** The client's `Kafka` makes the consumer run(kafka) runs. */
export const asKafka = (kafka: KafkaJS.Kafka): KafkaLike => kafka;

export async function confluentKit(): Promise<Kit> {
  const { KafkaJS: api } = await import('@confluentinc/kafka-javascript');
  const kafka = new api.Kafka({
    kafkaJS: { clientId: 'retry-topology-it', brokers: BROKERS, logLevel: api.logLevel.NOTHING },
  });
  return {
    client: 'confluent',
    kafka: asKafka(kafka),
    admin: (): KitAdmin => {
      const admin = kafka.admin();
      // The contract, plus connect/disconnect and the dead-letter commands' deleteGroups, which
      // the Confluent admin has as well.
      const checked: AdminLike & Pick<KafkaJS.Admin, 'connect' | 'disconnect' | 'deleteGroups'> =
        asAdmin(admin) && admin;
      return checked;
    },
    producer: (): KitProducer => {
      const producer = kafka.producer(KAFKA_PRODUCER_SETTINGS.confluent);
      const checked: ProducerLike & Pick<KafkaJS.Producer, 'connect' | 'disconnect'> =
        asProducer(producer) && producer;
      return checked;
    },
    consumer: (groupId: string, settings: ConsumerSettings = {}): KitConsumer => {
      const { onJoin, onTrouble, fromBeginning, chainAssignment, ...timings } = settings;
      const consumer = kafka.consumer({
        // The Confluent client takes these per consumer, never per call (contract.ts). It takes
        // assignors by name only: librdkafka's range keeps partition p of every topic together.
        kafkaJS: {
          groupId,
          autoCommit: false,
          fromBeginning: fromBeginning ?? false,
          ...timings,
          ...(chainAssignment ? { partitionAssigners: [api.PartitionAssigners.range] } : {}),
        },
        // librdkafka's rebalance callback: the Confluent client has no consumer.on events.
        ...(onJoin || onTrouble
          ? {
              rebalance_cb: (error: { code: number }) => {
                if (error.code === api.ErrorCodes.ERR__ASSIGN_PARTITIONS) onJoin?.();
                else onTrouble?.('revoked');
              },
            }
          : {}),
      });
      return asConsumer(consumer) as KitConsumer;
    },
  };
}
