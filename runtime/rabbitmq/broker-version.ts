import type { Channel } from 'amqplib';
import { MODE_MIN_VERSION, parseVersion, versionAtLeast } from '../../policy/broker-version';
import type { RabbitMqPlan } from '../../policy/plan/types';
import { RetryTopologyError } from '../errors';

/**
 * Refuses a broker older than the plan needs, before anything is consumed or declared. The plan's
 * brokerVersion is the reviewed statement of the oldest broker it runs on; a broker that turns
 * out older would run the topology wrongly and quietly: RabbitMQ 3.10.8 accepts and ignores
 * `x-delayed-retry-*` queue arguments, so quorum-delayed-retry there would retry with no wait.
 * The broker's version comes from the AMQP connection's server properties. A broker that does
 * not call itself RabbitMQ, or reports no version, is not judged.
 */
export function assertBrokerVersion(
  channel: Pick<Channel, 'connection'>,
  plan: { policy: string },
  rabbit: Pick<RabbitMqPlan, 'mode' | 'brokerVersion'>,
): void {
  const server = (channel as Partial<Pick<Channel, 'connection'>>).connection?.serverProperties;
  if (server?.product !== 'RabbitMQ' || typeof server.version !== 'string') return;
  const have = parseVersion(server.version);
  if (!have) return;
  const stated = parseVersion(rabbit.brokerVersion) ?? [];
  const mode = MODE_MIN_VERSION[rabbit.mode];
  const needed = versionAtLeast(stated, mode) ? stated : mode;
  if (versionAtLeast(have, needed)) return;
  const why =
    needed === stated ? `its brokerVersion is ${rabbit.brokerVersion}` : `mode "${rabbit.mode}" needs it`;
  throw new RetryTopologyError(
    'broker-too-old',
    `RabbitMQ ${server.version} is older than ${needed.join('.')}, which the plan for "${plan.policy}" needs (${why}); ` +
      'connect to a newer broker, or change the policy to one this broker runs (brokerVersion, mode) and review it',
  );
}
