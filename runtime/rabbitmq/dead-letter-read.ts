import type { Message } from 'amqplib';
import { contentDigest } from '../dead-letters/digest';
import { asText, readDeadLetterMetadata, reasonGroup } from '../dead-letters/metadata';
import type { DeadLetter } from '../dead-letters/types';

interface DeathEntry {
  reason?: unknown;
  queue?: unknown;
  time?: unknown;
}

/**
 * The broker's newest dead-lettering (x-death lists newest first, 3.10.8). The runtime's own
 * dead letters carry no x-death: its copies leave the broker's headers behind.
 */
function newestDeath(headers: Record<string, unknown>): DeathEntry | undefined {
  const deaths = headers['x-death'];
  return Array.isArray(deaths) && deaths[0] && typeof deaths[0] === 'object'
    ? (deaths[0] as DeathEntry)
    : undefined;
}

/** amqplib hands AMQP timestamps over as `{ '!': 'timestamp', value: seconds }`. */
function deathTime(time: unknown): number | undefined {
  const seconds =
    time !== null && typeof time === 'object' && 'value' in time
      ? Number((time as { value: unknown }).value)
      : Number.NaN;
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1_000 : undefined;
}

/**
 * Counters the broker raises each time a read gives the message back: not part of its identity.
 * A requeue raises x-delivery-count on 3.10.8 and 4.0.5, x-acquired-count on 4.3.6 (checked: a
 * quorum-queue message nacked with requeue twice).
 */
const PASS_COUNTED = new Set(['x-delivery-count', 'x-acquired-count']);

export function readRabbitDeadLetter(message: Message, queue: string): DeadLetter {
  const { headers: rawHeaders, ...rest } = message.properties;
  const headers: Record<string, unknown> = { ...(rawHeaders ?? {}) };
  const properties = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  const metadata = readDeadLetterMetadata((name) => headers[name]);
  const death = metadata.reason ? undefined : newestDeath(headers);
  const brokerReason = death ? asText(death.reason) : undefined;
  const identity = Object.fromEntries(Object.entries(headers).filter(([name]) => !PASS_COUNTED.has(name)));
  const letter: DeadLetter = {
    id: contentDigest(properties, identity, message.content),
    location: queue,
    reason: reasonGroup(metadata, brokerReason),
    replays: metadata.replays,
    headers,
    properties,
    body: message.content,
  };
  const messageId = asText(properties.messageId);
  const optional = {
    messageId,
    brokerReason,
    errorName: metadata.errorName,
    errorMessage: metadata.errorMessage,
    attempt: metadata.attempt,
    attemptInvalid: metadata.attemptInvalid,
    source: metadata.source ?? (death ? asText(death.queue) : undefined),
    firstFailureAt: metadata.firstFailureAt,
    deadLetteredAt: metadata.deadLetteredAt ?? (death ? deathTime(death.time) : undefined),
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) Object.assign(letter, { [key]: value });
  return letter;
}
