import type { RabbitMode } from './types';

/**
 * RabbitMQ versions as the policy states them ("3.13.7") and as a broker reports itself in the
 * AMQP connection's server properties ("4.3.6", "4.4.0-rc.1"): the leading numbers count.
 */
export function parseVersion(text: string): number[] | undefined {
  const match = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text.trim());
  if (!match) return undefined;
  return match.slice(1).map((part) => Number(part ?? 0));
}

/** True when `have` is `minimum` or newer; missing parts count as 0. */
export function versionAtLeast(have: readonly number[], minimum: readonly number[]): boolean {
  for (let index = 0; index < Math.max(have.length, minimum.length); index++) {
    const a = have[index] ?? 0;
    const b = minimum[index] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

/** At-least-once dead-lettering for quorum queues arrived in 3.10. */
export const BASE_VERSION = [3, 10] as const;

/** The first RabbitMQ version that has each mode. quorum-delayed-retry: the quorum queue's
 * delayed retry (4.3, checked on 4.3.6); delivery-time: `x-opt-delivery-time` on a published
 * message (4.4, not checked here: no 4.4 broker has run these tests yet). */
export const MODE_MIN_VERSION: Record<RabbitMode, readonly number[]> = {
  'ttl-queues': BASE_VERSION,
  'quorum-delayed-retry': [4, 3],
  'delivery-time': [4, 4],
};
