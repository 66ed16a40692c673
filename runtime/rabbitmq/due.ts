import type { ConsumeMessage } from 'amqplib';
import { HEADERS } from '../dead-letter';

/**
 * How long a delivery must still wait before its handler may run: what its `retry-not-before`
 * says is left, or 0.
 *
 * The wait queue's TTL (or 4.4's delivery time) does the waiting; this is the guard for a broker
 * that lets a copy out before its time. Seen on a 3-node 3.10.8 cluster: right after the node
 * leading the wait queues was killed, the new leader let 22 copies of a 4 s level out together,
 * 1.3–3.2 s early. Erlang also slews its timers by up to 1 %. A copy that comes early is held,
 * unacked, for the time left, so no retry ever runs before its delay.
 *
 * What is held is at most `longestWaitMs` (the plan's longest wait): a publisher clock ahead of
 * this one, or a damaged value, delays a message by no more than one wait. A missing or malformed
 * value holds nothing: the broker's wait already ran.
 */
export function timeLeft(message: ConsumeMessage, now: number, longestWaitMs: number): number {
  const value = message.properties.headers?.[HEADERS.notBefore];
  const dueAt =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\d{1,16}$/.test(value.trim())
        ? Number(value)
        : Number.NaN;
  if (!Number.isSafeInteger(dueAt) || dueAt <= now) return 0;
  return Math.min(dueAt - now, longestWaitMs);
}
