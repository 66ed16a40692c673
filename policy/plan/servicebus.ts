import { toIso8601 } from '../duration';
import type { Policy, ServiceBusTarget } from '../types';
import { serviceBusNames } from './names';
import { deliveryRules, jitterRange } from './timeline';
import type {
  Level,
  ServiceBusDeadLetterQueue,
  ServiceBusEntityProperties,
  ServiceBusEntitySpec,
  ServiceBusPlan,
} from './types';

export const SERVICE_BUS_ATTEMPT_PROPERTY = 'retry-attempt';

/** Azure's own default message TTL is "forever"; two weeks keeps a forgotten queue from growing unbounded. */
const DEFAULT_MESSAGE_TTL_MS = 14 * 86_400_000;

/**
 * Where dead letters end up. A message is dead-lettered into the subqueue of the entity it was
 * received from: the first attempt comes from the queue or subscription, every later one from
 * wherever the copies were scheduled. So with a retry queue, exhausted messages are in the retry
 * queue's own $deadletterqueue, not the subscription's; an operator watching only the
 * subscription's would watch an empty queue. With forwardDeadLettersTo both forward there.
 */
function deadLetterPlaces(
  policy: Policy,
  target: ServiceBusTarget,
  entityPath: string,
  retryQueue: string | undefined,
): ServiceBusDeadLetterQueue[] {
  const forward = target.forwardDeadLettersTo;
  const place = (from: string) => (forward === undefined ? `${from}/$deadletterqueue` : forward);
  const last = policy.maxAttempts;
  if (!retryQueue || last === 1)
    return [{ path: place(entityPath), from: entityPath, attempts: { from: 1, to: last } }];
  return [
    { path: place(entityPath), from: entityPath, attempts: { from: 1, to: 1 } },
    { path: place(retryQueue), from: retryQueue, attempts: { from: 2, to: last } },
  ];
}

/**
 * Service Bus: the consumer's queue or subscription. A retry is a scheduled copy, on the queue
 * itself or on a retry queue of the consumer's own (see serviceBusNames for when and why).
 */
export function planServiceBus(policy: Policy, target: ServiceBusTarget, delays: number[]): ServiceBusPlan {
  const { retryQueue, scheduleTo } = serviceBusNames(policy, target);
  const levels: Level[] = delays.map((delayMs, index) => ({
    level: index + 1,
    delayMs,
    waitMs: jitterRange(delayMs, policy.jitter),
    destination: scheduleTo,
  }));
  const entityPath =
    target.entity === 'queue' ? target.queue : `${target.topic}/subscriptions/${target.subscription}`;
  const deadLetterQueues = deadLetterPlaces(policy, target, entityPath, retryQueue);
  // The timeline ends where exhausted messages are: the last entry, the one the last attempt
  // failed on.
  const exhausted = deadLetterQueues[deadLetterQueues.length - 1]?.path ?? `${entityPath}/$deadletterqueue`;
  const rules = deliveryRules(policy, levels, true, exhausted);

  const ttlMs = Math.max(policy.messageTtlMs ?? DEFAULT_MESSAGE_TTL_MS, rules.retryWindowMs.max);
  const base: ServiceBusEntityProperties = {
    maxDeliveryCount: target.deliveryLimit,
    lockDuration: toIso8601(target.lockDurationMs),
    defaultMessageTimeToLive: toIso8601(ttlMs),
    deadLetteringOnMessageExpiration: true,
    requiresDuplicateDetection: false,
    ...(target.forwardDeadLettersTo === undefined
      ? {}
      : { forwardDeadLetteredMessagesTo: target.forwardDeadLettersTo }),
  };

  const entities: ServiceBusEntitySpec[] = [];
  if (target.entity === 'queue') {
    const detection = target.duplicateDetectionMs;
    entities.push({
      role: 'main',
      kind: 'queue',
      name: target.queue,
      properties:
        detection === undefined
          ? base
          : {
              ...base,
              requiresDuplicateDetection: true,
              duplicateDetectionHistoryTimeWindow: toIso8601(detection),
            },
    });
  } else {
    entities.push({
      role: 'main',
      kind: 'subscription',
      name: target.subscription,
      topic: target.topic,
      properties: base,
    });
  }
  if (retryQueue) entities.push({ role: 'retry', kind: 'queue', name: retryQueue, properties: base });

  return {
    ...rules,
    entity:
      target.entity === 'queue'
        ? { kind: 'queue', queue: target.queue }
        : { kind: 'subscription', topic: target.topic, subscription: target.subscription },
    scheduleTo,
    deadLetterQueues,
    attemptProperty: SERVICE_BUS_ATTEMPT_PROPERTY,
    lockDurationMs: target.lockDurationMs,
    lockRenewalMs: target.lockRenewalMs,
    replication: 'managed-by-service',
    entities,
  };
}
