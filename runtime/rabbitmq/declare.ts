import type { Channel } from 'amqplib';
import type { RetryPlan } from '../../policy/plan/types';
import { targetRules } from '../rules';
import { assertBrokerVersion } from './broker-version';
import type { ManagementApi } from './management';
import { assertChannelVhost } from './vhost';

/**
 * Declares exactly the plan's RabbitMQ specs, for development and tests (Pulumi does it in
 * production from the same specs). Policies first, so each queue has its dead-lettering and
 * limits from the moment it exists; then exchanges, queues and bindings over AMQP. A channel in
 * another vhost than the plan's is refused (code `vhost-mismatch`) before anything is written. A
 * queue that already exists is left as it is.
 */
export async function declareTopology(
  channel: Channel,
  plan: RetryPlan,
  management: ManagementApi,
): Promise<void> {
  const rabbit = targetRules(plan, 'rabbitmq');
  assertBrokerVersion(channel, plan, rabbit);
  await assertChannelVhost(channel, rabbit.vhost, management);
  for (const policy of rabbit.policies) await management.putPolicy(rabbit.vhost, policy);
  for (const exchange of rabbit.exchanges) {
    if (!exchange.declare) continue;
    await channel.assertExchange(exchange.name, exchange.type, {
      durable: exchange.durable,
      autoDelete: exchange.autoDelete,
    });
  }
  for (const queue of rabbit.queues) {
    // An existing queue keeps the replica count it was declared with: RabbitMQ refuses a redeclare
    // with another x-quorum-initial-group-size (406 PRECONDITION_FAILED, checked on 3.10.8), and
    // the plan's count is for queues declared from now on, as in the Pulumi component.
    if (await management.getQueue(rabbit.vhost, queue.name)) continue;
    await channel.assertQueue(queue.name, {
      durable: queue.durable,
      autoDelete: queue.autoDelete,
      arguments: queue.arguments,
    });
  }
  for (const binding of rabbit.bindings) {
    await channel.bindQueue(binding.destination, binding.source, binding.routingKey);
  }
}

/**
 * Removes what declareTopology made (tests clean up with it). Messages in the queues go too. The
 * same vhost check runs first, so it never deletes same-named queues in another vhost.
 */
export async function deleteTopology(
  channel: Channel,
  plan: RetryPlan,
  management: ManagementApi,
): Promise<void> {
  const rabbit = targetRules(plan, 'rabbitmq');
  await assertChannelVhost(channel, rabbit.vhost, management);
  for (const queue of rabbit.queues) await channel.deleteQueue(queue.name);
  for (const exchange of rabbit.exchanges) if (exchange.declare) await channel.deleteExchange(exchange.name);
  for (const policy of rabbit.policies) await management.deletePolicy(rabbit.vhost, policy.name);
}
