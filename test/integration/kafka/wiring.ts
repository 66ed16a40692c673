import type { KafkaPlan } from '../../../policy';
import type { ConsumerLike, KafkaRetry, KafkaRetryOptions } from '../../../runtime/kafka';
import { type ConsumerSettings, type Kit, timingsOf } from '../../support/kafka-kit';

/**
 * How a worker process runs the runtime: `run(kafka)`, which makes its consumers (`chain`; per-key
 * order needs it), or wired by hand (runMain and runRetry, without key order).
 */
export function wiringOptions(settings: ConsumerSettings, chain: boolean): Partial<KafkaRetryOptions> {
  return chain ? { consumerSettings: timingsOf(settings) } : {};
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
