import type { ServiceBusPlan } from '../../policy/plan/types';
import type { ScheduleSender, SettlingReceiver } from './contract';
import { ServiceBusRetryError } from './errors';

/** The path a receiver reports for the plan's entity (the SDK writes `<topic>/Subscriptions/<sub>`). */
export function entityPath(plan: Pick<ServiceBusPlan, 'entity'>): string {
  const { entity } = plan;
  return entity.kind === 'queue' ? entity.queue : `${entity.topic}/Subscriptions/${entity.subscription}`;
}

// Service Bus entity names are case-insensitive.
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * A sender on any other entity would put the copies where the plan did not: on the topic, every
 * subscription would get them again; on a duplicate-detecting queue, they would be dropped.
 */
export function checkSender(plan: ServiceBusPlan, sender: ScheduleSender): void {
  if (!same(sender.entityPath, plan.scheduleTo)) {
    throw new ServiceBusRetryError(
      'wrong-entity',
      `retry copies go to "${plan.scheduleTo}", but the sender is for "${sender.entityPath}"`,
    );
  }
}

/** The consumer reads its own entity and, when copies go elsewhere, the retry queue too. */
export function checkReceiver(plan: ServiceBusPlan, receiver: SettlingReceiver): void {
  const allowed = [entityPath(plan), plan.scheduleTo];
  if (!allowed.some((path) => same(path, receiver.entityPath))) {
    throw new ServiceBusRetryError(
      'wrong-entity',
      `the receiver is for "${receiver.entityPath}"; this plan consumes ${allowed.map((path) => `"${path}"`).join(' and ')}`,
    );
  }
  if (receiver.receiveMode !== 'peekLock') {
    throw new ServiceBusRetryError(
      'not-peek-lock',
      `the receiver for "${receiver.entityPath}" is in ${receiver.receiveMode} mode; retries need peekLock, where a message is settled only after the handler`,
    );
  }
}
