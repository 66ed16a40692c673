import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterHeaders } from '../../../runtime';
import { rabbitMqDeadLetters } from '../../../runtime/rabbitmq';
import { instanceVersion } from './dead-letter-mix';
import { type Broker, connect, INSTANCE, rabbitPlan, uniqueName, withTopology } from './support';

/**
 * RabbitMQ can only read a queue by taking messages and giving them back, and from 4.0 a quorum
 * queue counts each return against a delivery limit of 20 by default. The plan turns the limit
 * off for the dead-letter queue on 4.0+; without that, the 21st `list` dropped every dead letter
 * on 4.0.5 (it has no dead-letter exchange of its own to go to).
 */
describe(`reading RabbitMQ dead letters again and again (RabbitMQ ${INSTANCE})`, () => {
  const plan = rabbitPlan(uniqueName('dl-reads'), {}, { brokerVersion: instanceVersion() });
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  let broker: Broker;
  let removeTopology: () => Promise<void>;

  beforeAll(async () => {
    removeTopology = await withTopology(plan);
    broker = await connect();
    for (let index = 0; index < 5; index++) {
      broker.channel.publish(rabbit.deadLetterExchange, rabbit.mainQueue, Buffer.from(`dead ${index}`), {
        persistent: true,
        headers: deadLetterHeaders({
          reason: 'permanent',
          because: 'permanent: InvalidCurrencyError',
          errorName: 'InvalidCurrencyError',
          errorMessage: 'XXX',
          attempt: 1,
          source: rabbit.mainQueue,
          firstFailureAt: Date.now(),
          deadLetteredAt: Date.now(),
        }),
      });
    }
    await broker.channel.waitForConfirms();
  });
  afterAll(async () => {
    await broker?.close();
    await removeTopology?.();
  });

  it('loses nothing after 25 reads', async () => {
    const commands = rabbitMqDeadLetters(plan, { connection: broker.connection });
    for (let read = 0; read < 25; read++) expect((await commands.list()).total).toBe(5);
    expect((await broker.channel.checkQueue(rabbit.deadLetterQueue)).messageCount).toBe(5);
  });
});
