import { afterAll, describe, expect, it } from 'vitest';
import { declareTopology, deleteTopology } from '../../../runtime/rabbitmq';
import { connect, drain, management, publish, rabbitPlan, uniqueName } from './support';

/**
 * A changed `quorumReplicas` is for queues declared from now on: the replica count is a queue
 * argument (x-quorum-initial-group-size) that RabbitMQ refuses to see changed on a redeclare
 * (406 PRECONDITION_FAILED, which closes the channel). declareTopology must leave every existing
 * queue as it is, with its argument and its messages, and still declare what is new.
 */
describe('declareTopology after a change of the quorum replica count', () => {
  const name = uniqueName('replicas');
  const before = rabbitPlan(
    name,
    { backoff: { type: 'list', delays: ['1s', '2s'] }, maxAttempts: 3 },
    { quorumReplicas: 1 },
  );
  // The same policy with three replicas and one more wait level.
  const after = rabbitPlan(
    name,
    { backoff: { type: 'list', delays: ['1s', '2s', '4s'] }, maxAttempts: 4 },
    { quorumReplicas: 3 },
  );
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const each of cleanup) await each();
  });

  it('keeps every existing queue with its count and its messages, and declares the new level', async () => {
    const broker = await connect();
    cleanup.push(async () => {
      const admin = await connect();
      await deleteTopology(admin.channel, after, management).catch(() => undefined);
      await admin.close();
      await broker.close();
    });
    await declareTopology(broker.channel, before, management);
    await publish(broker, before, { id: 'waiting' });

    await declareTopology(broker.channel, after, management);

    const rabbit = after.targets.rabbitmq;
    const rabbitBefore = before.targets.rabbitmq;
    if (!rabbit || !rabbitBefore) throw new Error('no rabbitmq target');
    const existing = new Set(rabbitBefore.queues.map((queue) => queue.name));
    const added = rabbit.queues.filter((queue) => !existing.has(queue.name));
    expect(added.map((queue) => queue.role)).toEqual(['wait']);
    for (const queue of rabbit.queues) {
      const found = (await management.getQueue(rabbit.vhost, queue.name)) as {
        arguments?: Record<string, unknown>;
      };
      expect(found?.arguments?.['x-quorum-initial-group-size'], queue.name).toBe(
        existing.has(queue.name) ? 1 : 3,
      );
    }
    const messages = await drain(broker, rabbit.mainQueue);
    expect(messages.map((message) => JSON.parse(message.content.toString()).id)).toEqual(['waiting']);
  });
});
