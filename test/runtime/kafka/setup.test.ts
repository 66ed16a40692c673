import { describe, expect, it } from 'vitest';
import { createKafkaRetry } from '../../../runtime/kafka';
import { billingPlan } from '../plan-fixture';
import { FakeConsumer, FakeProducer } from './fakes';

describe('createKafkaRetry', () => {
  const parkKey = billingPlan({
    ordering: 'per-key',
    targets: {
      kafka: { topic: 'bookstore.orders', consumerGroup: 'billing', partitions: 3, replicationFactor: 1 },
    },
  });

  it('refuses per-key order through run(kafka) without the admin it reads the chain with', async () => {
    expect(parkKey.targets.kafka?.ordering).toBe('park-key');
    const retry = createKafkaRetry({
      plan: parkKey,
      handler: async () => {},
      producer: new FakeProducer([]),
    });
    await expect(retry.run({ consumer: () => new FakeConsumer() })).rejects.toMatchObject({
      name: 'KafkaRetryError',
      code: 'per-key-needs-admin',
    });
  });

  it('refuses runMain for a plan that keeps key order, and points at run(kafka)', async () => {
    const retry = createKafkaRetry({
      plan: parkKey,
      handler: async () => {},
      producer: new FakeProducer([]),
    });
    await expect(retry.runMain(new FakeConsumer())).rejects.toMatchObject({
      code: 'per-key-needs-run',
      message: expect.stringContaining('run(kafka)'),
    });
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
