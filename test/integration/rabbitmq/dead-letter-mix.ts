import type { GetMessage } from 'amqplib';
import type { RetryPlan } from '../../../policy';
import { consumeWithRetries } from '../../../runtime/rabbitmq';
import { type Fate, fateOf, idOf, MIX_SIZE } from '../dead-letters/mix';
import { type Broker, body, http503, INSTANCE, InvalidCurrencyError, publish, waitFor } from './support';

/**
 * Dead-letters the 500-message mix through the real runtime: the handler fails each message as
 * its fate says (invalid currency and TypeError: permanent; 503: exhausted after four attempts).
 * The broker rejections are what the runtime does when its dead-letter publish is refused: a
 * reject without requeue, which the main queue's dead-letter exchange takes (x-death "rejected").
 */
export async function deadLetterMix(broker: Broker, plan: RetryPlan): Promise<void> {
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  const indexes = [...Array(MIX_SIZE).keys()];
  const byFate = (fate: Fate) => indexes.filter((index) => fateOf(index) === fate);

  // The broker's own dead-lettering first, on a channel of its own.
  const rejecting = await broker.connection.createChannel();
  for (const index of byFate('broker'))
    await publish(broker, plan, { id: idOf(index), fate: 'broker' }, { messageId: idOf(index) });
  let rejected = 0;
  const { consumerTag } = await rejecting.consume(rabbit.mainQueue, (message) => {
    if (!message) return;
    rejecting.reject(message, false);
    rejected++;
  });
  await waitFor(() => rejected >= byFate('broker').length, 30_000, 'the broker rejections');
  await rejecting.cancel(consumerTag);
  await rejecting.close();

  const consumer = await consumeWithRetries(
    broker.channel,
    plan,
    async (message) => {
      const { fate } = body(message) as { id: string; fate: Fate };
      if (fate === 'currency') throw new InvalidCurrencyError('Unsupported currency XXX');
      if (fate === 'type') throw new TypeError("Cannot read properties of undefined (reading 'total')");
      throw http503();
    },
    { prefetch: 50 },
  );
  for (const index of indexes.filter((each) => fateOf(each) !== 'broker'))
    await publish(
      broker,
      plan,
      { id: idOf(index), fate: fateOf(index) },
      { messageId: idOf(index), contentType: 'application/json' },
    );
  await waitFor(
    async () =>
      (await broker.channel.checkQueue(rabbit.deadLetterQueue)).messageCount >= MIX_SIZE || undefined,
    120_000,
    `${MIX_SIZE} dead letters`,
  );
  await consumer.stop();
}

/** Every message in a queue, read and given back (get without ack, then one nack with requeue). */
export async function peekAll(broker: Broker, queue: string): Promise<GetMessage[]> {
  const channel = await broker.connection.createChannel();
  const out: GetMessage[] = [];
  for (;;) {
    const message = await channel.get(queue, { noAck: false });
    if (!message) break;
    out.push(message);
  }
  channel.nackAll(true);
  await channel.close();
  return out;
}

/** The version of the broker under test, for plans that must say it (the plan differs from 4.0). */
export function instanceVersion(): string {
  return (
    ({ '3.10': '3.10.8', '4.0': '4.0.5', '4.3': '4.3.6' } as Record<string, string>)[INSTANCE] ?? '3.10.8'
  );
}
