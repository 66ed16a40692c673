import { afterAll, describe, expect, it } from 'vitest';
import { RetryTopologyError } from '../../../runtime';
import { publishConfirmed } from '../../../runtime/rabbitmq/confirm';
import { connect, uniqueName } from './support';

/**
 * A publish whose channel closes before the broker confirms it was not refused: it may or may not
 * be in the queue, and the consumer must not keep retrying it on a dead channel as if a full wait
 * queue had said no. It fails with `publish-failed`; a broker nack stays `publish-refused`.
 */
describe('publishConfirmed when the channel closes first', () => {
  const queue = uniqueName('confirm-close');
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const each of cleanup) await each();
  });

  it('fails the unconfirmed publishes with publish-failed, never publish-refused', async () => {
    const admin = await connect();
    cleanup.push(async () => {
      await admin.channel.deleteQueue(queue).catch(() => undefined);
      await admin.close();
    });
    await admin.channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });

    const broker = await connect();
    cleanup.push(broker.close);
    const send = () => publishConfirmed(broker.channel, '', queue, Buffer.from('x'), { persistent: true });
    const before = Array.from({ length: 20 }, send);
    // A publish to an exchange that does not exist: the broker closes the channel (404).
    broker.channel.publish(`${queue}.missing`, 'x', Buffer.from('x'));
    const after = Array.from({ length: 200 }, send);
    const outcomes = await Promise.allSettled([...before, ...after]);
    const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));

    expect(failures.length, 'publishes the closed channel never confirmed').toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(RetryTopologyError);
      expect((failure as RetryTopologyError).code).toBe('publish-failed');
    }
  });
});
