/**
 * The test kit for `@confluentinc/kafka-javascript` (its KafkaJS API), installed by
 * scripts/confluent.sh outside node_modules. This folder is type-checked on its own against the
 * installed client's real type definitions (test/integration/kafka/confluent-types.test.ts): the
 * assignments to the runtime's contract types below fail to compile if the client drifts.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { KafkaJS } from '@confluentinc/kafka-javascript';
import type { AdminLike, ConsumerLike, ProducerLike } from '../../runtime/kafka';
import { KAFKA_PRODUCER_SETTINGS } from '../../runtime/kafka';
import type { ConsumerSettings, Kit, KitAdmin, KitConsumer, KitProducer } from '../support/kafka-kit';
import { BROKERS } from '../support/kafka-kit';

type Module = typeof import('@confluentinc/kafka-javascript');

// The contract, checked by the compiler against the client's own types.
export const asConsumer = (consumer: KafkaJS.Consumer): ConsumerLike => consumer;
export const asProducer = (producer: KafkaJS.Producer): ProducerLike => producer;
export const asAdmin = (admin: KafkaJS.Admin): AdminLike => admin;

export function confluentKit(dir: string): Kit {
  const load = createRequire(join(dir, 'package.json'));
  const { KafkaJS: api } = load('@confluentinc/kafka-javascript') as Module;
  const kafka = new api.Kafka({
    kafkaJS: { clientId: 'retry-topology-it', brokers: BROKERS, logLevel: api.logLevel.NOTHING },
  });
  return {
    client: 'confluent',
    admin: (): KitAdmin => {
      const admin = kafka.admin();
      return Object.assign(asAdmin(admin), {
        connect: () => admin.connect(),
        disconnect: () => admin.disconnect(),
      });
    },
    producer: (): KitProducer => {
      const producer = kafka.producer(KAFKA_PRODUCER_SETTINGS.confluent);
      return Object.assign(asProducer(producer), {
        connect: () => producer.connect(),
        disconnect: () => producer.disconnect(),
      });
    },
    consumer: (groupId: string, settings: ConsumerSettings = {}): KitConsumer => {
      const { onJoin, onTrouble, fromBeginning, ...timings } = settings;
      const consumer = kafka.consumer({
        // The Confluent client takes these per consumer, never per call (contract.ts).
        kafkaJS: { groupId, autoCommit: false, fromBeginning: fromBeginning ?? false, ...timings },
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
