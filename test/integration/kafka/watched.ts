import type { KafkaLike } from '../../../runtime/kafka';
import type { Kit } from '../../support/kafka-kit';

/**
 * The kit, with every consumer it makes watched, whichever way the worker wires the runtime: the
 * ones run(kafka) makes through `kafka.consumer` (KafkaJS's GROUP_JOIN, or the Confluent client's
 * rebalance callback, whose `on` is not implemented, noted before the runtime's own), and the
 * ones the worker makes through `consumer` for runMain and runRetry (the kit's onJoin and
 * onTrouble). Each join or rebalance is a way a process reads the uncommitted part of its
 * partitions again, so a test can tell a duplicate it explains from one nothing explains.
 */
export function watched(client: Kit, note: (line: { event: string }) => void): Kit {
  const kafka: KafkaLike = {
    consumer(config) {
      const settings = config as { rebalance_cb?: (error: { code: number }, assignment: unknown) => unknown };
      const own = settings.rebalance_cb;
      if (own) {
        settings.rebalance_cb = (error, assignment) => {
          note({ event: `rebalance ${error.code}` });
          return own(error, assignment);
        };
      }
      const consumer = client.kafka.consumer(settings);
      if (client.client === 'kafkajs' && consumer.on && consumer.events) {
        consumer.on(consumer.events.GROUP_JOIN, () => note({ event: 'join' }));
      }
      return consumer;
    },
  };
  return {
    ...client,
    kafka,
    consumer: (groupId, settings = {}) =>
      client.consumer(groupId, {
        ...settings,
        onJoin: () => {
          note({ event: 'join' });
          settings.onJoin?.();
        },
        onTrouble: (what) => {
          note({ event: `trouble ${what}` });
          settings.onTrouble?.(what);
        },
      }),
  };
}
