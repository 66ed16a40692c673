import type { TargetName } from '../../policy/plan/targets';
import type { RetryPlan } from '../../policy/plan/types';
import { DeadLetterError } from './errors';
import type { DeadLetterLocation } from './types';

/** The Service Bus SDK's path of an entity's dead-letter subqueue (names are case-insensitive). */
export function deadLetterSubqueue(entityPath: string): string {
  return `${entityPath}/$DeadLetterQueue`;
}

/** The consumer group whose committed offsets say how far a Kafka dead-letter topic was replayed. */
export function replayGroupOf(deadLetterTopic: string): string {
  return `${deadLetterTopic}.replay`;
}

/**
 * Why `replay --keep-attempts` cannot apply to a plan's target, or undefined when it can: where
 * the broker counts the attempts (x-delivery-count), the count cannot be carried over.
 */
export function keepAttemptsUnsupported(plan: RetryPlan, target: TargetName): string | undefined {
  return target === 'rabbitmq' && plan.targets.rabbitmq?.mode === 'quorum-delayed-retry'
    ? 'in quorum-delayed-retry mode the broker counts attempts (x-delivery-count)'
    : undefined;
}

/**
 * Where each target of a plan keeps its dead letters, and where `dead-letters replay` sends them.
 *
 * Service Bus has two when the copies go to a retry queue of the consumer's own (a subscription,
 * or a duplicate-detecting queue) and there is more than one attempt: a message that fails on the
 * entity itself (a permanent error on attempt 1, or the broker's MaxDeliveryCount) is
 * dead-lettered there, one that fails on the retry queue (attempt 2 on, so every exhausted one) in
 * the retry queue's own subqueue: the plan's deadLetterQueues.
 */
export function deadLetterLocations(plan: RetryPlan, only?: TargetName): DeadLetterLocation[] {
  const out: DeadLetterLocation[] = [];
  const { rabbitmq, kafka, serviceBus } = plan.targets;
  if (rabbitmq && (!only || only === 'rabbitmq') && rabbitmq.deadLetterQueue) {
    out.push({
      target: 'rabbitmq',
      kind: 'queue',
      name: rabbitmq.deadLetterQueue,
      holds: `every dead letter of ${rabbitmq.mainQueue} (through exchange ${rabbitmq.deadLetterExchange})`,
      replayTo: `queue ${rabbitmq.mainQueue} (default exchange: no other queue bound to the source exchange sees it again)`,
    });
  }
  if (kafka && (!only || only === 'kafka') && kafka.deadLetterTopic) {
    out.push({
      target: 'kafka',
      kind: 'topic',
      name: kafka.deadLetterTopic,
      holds: `every dead letter of ${kafka.sourceTopic} and its retry topics`,
      replayTo: `topic ${kafka.sourceTopic}, each record to its original partition`,
      progressGroup: replayGroupOf(kafka.deadLetterTopic),
    });
  }
  if (serviceBus?.entity && serviceBus.scheduleTo && (!only || only === 'serviceBus')) {
    // The plan says where each attempt's failure is dead-lettered (policy/plan/servicebus.ts);
    // the SDK spells a subscription's path with "Subscriptions".
    const { entity } = serviceBus;
    const sdkPath = (from: string) =>
      entity.kind === 'subscription' && from === `${entity.topic}/subscriptions/${entity.subscription}`
        ? `${entity.topic}/Subscriptions/${entity.subscription}`
        : from;
    const places = serviceBus.deadLetterQueues.map((place) => ({ ...place, from: sdkPath(place.from) }));
    const replayTo = `queue ${serviceBus.scheduleTo}`;
    const forward = serviceBus.entities.find((spec) => spec.properties.forwardDeadLetteredMessagesTo)
      ?.properties.forwardDeadLetteredMessagesTo;
    if (forward) {
      // Forwarded dead letters are ordinary messages of that queue, which other consumers may
      // forward to as well: only those whose DeadLetterSource is one of ours are this plan's.
      const from = places.map((place) => place.from);
      out.push({
        target: 'serviceBus',
        kind: 'queue',
        name: forward,
        holds: `the dead letters of ${from.join(' and ')}, forwarded (forwardDeadLettersTo)`,
        replayTo,
        onlyFrom: from,
      });
      return out;
    }
    for (const place of places) {
      const { from, to } = place.attempts;
      out.push({
        target: 'serviceBus',
        kind: 'subqueue',
        name: deadLetterSubqueue(place.from),
        holds:
          places.length === 1
            ? `every dead letter of ${place.from}`
            : from === to
              ? `failures of attempt ${from} (permanent errors) and what the broker dead-lettered on ${place.from}`
              : `failures of attempts ${from}–${to} (every exhausted message) and what the broker dead-lettered on ${place.from}`,
        replayTo,
      });
    }
  }
  return out;
}

/**
 * Where the target keeps its dead letters; throws `no-target` when the plan has no such target and
 * `no-dead-letters` when it names none (a hand-edited or truncated plan), before any connection.
 */
export function requireDeadLetters(plan: RetryPlan, target: TargetName): DeadLetterLocation[] {
  if (!plan.targets?.[target]) {
    const has = Object.keys(plan.targets ?? {}).join(', ') || 'none';
    throw new DeadLetterError(
      'no-target',
      `the plan for "${plan.policy}" has no ${target} target (it has: ${has})`,
    );
  }
  const found = deadLetterLocations(plan, target);
  if (found.length === 0)
    throw new DeadLetterError(
      'no-dead-letters',
      `the plan for "${plan.policy}" names no dead-letter ${target === 'kafka' ? 'topic' : 'queue'} for ${target}`,
    );
  return found;
}
