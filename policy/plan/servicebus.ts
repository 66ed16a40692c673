import { toIso8601 } from '../duration';
import type { Policy, ServiceBusTarget } from '../types';
import { serviceBusNames } from './names';
import { deliveryRules, jitterRange } from './timeline';
import type { Level, ServiceBusEntityProperties, ServiceBusEntitySpec, ServiceBusPlan } from './types';

export const SERVICE_BUS_ATTEMPT_PROPERTY = 'retry-attempt';

/** Azure's own default message TTL is "forever"; two weeks keeps a forgotten queue from growing unbounded. */
const DEFAULT_MESSAGE_TTL_MS = 14 * 86_400_000;

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
  const rules = deliveryRules(policy, levels, true, `${entityPath}/$deadletterqueue`);

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
    attemptProperty: SERVICE_BUS_ATTEMPT_PROPERTY,
    lockDurationMs: target.lockDurationMs,
    lockRenewalMs: target.lockRenewalMs,
    entities,
  };
}
