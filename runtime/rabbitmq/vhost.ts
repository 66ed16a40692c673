import type { Channel } from 'amqplib';
import { RetryTopologyError } from '../errors';
import type { ManagementApi } from './management';

/**
 * Refuses a channel whose connection is not in the plan's vhost. declareTopology writes policies
 * through the management API into the plan's vhost but declares queues over the channel; on a
 * mismatch the queues would live in another vhost with no policy, so no TTL, and retry copies
 * would wait forever. amqplib does not expose the vhost it opened, so the broker is asked: a
 * temporary queue declared on the channel must be visible in the plan's vhost.
 */
export async function assertChannelVhost(
  channel: Channel,
  vhost: string,
  management: ManagementApi,
): Promise<void> {
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
  try {
    if (await management.getQueue(vhost, queue)) return;
    const actual = await management.vhostsOfQueue(queue).catch(() => []);
    const where = actual.length === 1 ? `vhost "${actual[0]}"` : 'another vhost';
    throw new RetryTopologyError(
      'vhost-mismatch',
      `the plan's RabbitMQ resources belong in vhost "${vhost}", but the channel is connected to ${where}: ` +
        `connect to "${vhost}" (amqp://host/${encodeURIComponent(vhost)}) or set the policy's targets.rabbitmq.vhost`,
    );
  } finally {
    await channel.deleteQueue(queue).catch(() => undefined);
  }
}
