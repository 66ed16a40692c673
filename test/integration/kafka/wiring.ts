import type { KafkaPlan } from '../../../policy';
import type { ConsumerLike, KafkaRetry, KafkaRetryOptions } from '../../../runtime/kafka';
import { type ConsumerSettings, handWiredEngine, type Kit, timingsOf } from '../../support/kafka-kit';

/**
 * How a worker process runs the runtime: `run(kafka)`, which makes its consumers (per-key order on
 * one consumer per chain), or wired by hand (runMain, runRetry, and a chain view for per-key order
 * on the per-record engine).
 */
export function wiringOptions(
  client: Kit,
  target: KafkaPlan,
  settings: ConsumerSettings,
  chain: boolean,
): Partial<KafkaRetryOptions> {
  if (chain) return { engine: 'batched', consumerSettings: timingsOf(settings) };
  return {
    viewConsumer: (groupId: string) => client.consumer(groupId, settings),
    ...handWiredEngine(target.ordering),
  };
}

/** Starts the runtime as `wiringOptions` said; resolves to the consumers to disconnect after stop. */
export async function startWired(
  retry: KafkaRetry,
  client: Kit,
  target: KafkaPlan,
  settings: ConsumerSettings,
  chain: boolean,
  main: (consumer: ConsumerLike) => ConsumerLike = (consumer) => consumer,
): Promise<ConsumerLike[]> {
  if (chain) {
    await retry.run(client.kafka);
    return [];
  }
  const primary = client.consumer(target.consumerGroup, settings);
  const retrying = client.consumer(target.retryConsumerGroup, settings);
  await Promise.all([primary.connect(), retrying.connect()]);
  await retry.runMain(main(primary));
  await retry.runRetry(retrying);
  return [primary, retrying];
}
