import { describe, expect, it } from 'vitest';
import { createKafkaRetry, KafkaRetryError } from '../../../runtime/kafka';
import { billingPlan } from '../plan-fixture';
import { FakeConsumer, FakeProducer } from './fakes';

describe('createKafkaRetry', () => {
  const parkKey = billingPlan({
    ordering: 'per-key',
    targets: {
      kafka: { topic: 'bookstore.orders', consumerGroup: 'billing', partitions: 3, replicationFactor: 1 },
    },
  });

  it('refuses park-key ordering on the per-record engine without the admin and the view consumer it reads the chain with', () => {
    expect(parkKey.targets.kafka?.ordering).toBe('park-key');
    const error = (() => {
      try {
        createKafkaRetry({
          plan: parkKey,
          engine: 'per-record',
          handler: async () => {},
          producer: new FakeProducer([]),
        });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(KafkaRetryError);
    expect((error as KafkaRetryError).code).toBe('ordering-needs-view');
  });

  it('subscribes the main consumer to the source topic and the retry consumer to every level', async () => {
    const plan = billingPlan();
    const retry = createKafkaRetry({ plan, handler: async () => {}, producer: new FakeProducer([]) });
    const main = new FakeConsumer();
    const retrying = new FakeConsumer();
    await retry.runMain(main);
    await retry.runRetry(retrying);
    const kafka = plan.targets.kafka;
    expect(main.log).toEqual([`subscribe ${kafka?.sourceTopic}`]);
    expect(retrying.log).toEqual([`subscribe ${kafka?.levels.map((level) => level.destination).join(',')}`]);
  });
});
