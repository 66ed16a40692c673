import { asEpochMs, readDeadLetterMetadata, reasonGroup } from '../dead-letters/metadata';
import type { DeadLetter } from '../dead-letters/types';
import type { ConsumedMessage } from './contract';
import { headerText } from './headers';

/** A record of the dead-letter topic as a DeadLetter; its id is `partition:offset`, stable for good. */
export function readKafkaDeadLetter(
  topic: string,
  partition: number,
  message: ConsumedMessage,
  handled: boolean,
): DeadLetter {
  const headers = message.headers ?? {};
  const metadata = readDeadLetterMetadata((name) => headerText(headers, name));
  const letter: DeadLetter = {
    id: `${partition}:${message.offset}`,
    location: topic,
    reason: reasonGroup(metadata, undefined),
    replays: metadata.replays,
    headers: { ...headers },
    properties: { key: message.key, partition, offset: message.offset, timestamp: message.timestamp },
    body: message.value ?? Buffer.alloc(0),
  };
  if (handled) letter.handled = true;
  const optional = {
    errorName: metadata.errorName,
    errorMessage: metadata.errorMessage,
    attempt: metadata.attempt,
    attemptInvalid: metadata.attemptInvalid,
    source: metadata.source,
    firstFailureAt: metadata.firstFailureAt,
    // A record the runtime did not write still has the time it was produced.
    deadLetteredAt: metadata.deadLetteredAt ?? asEpochMs(message.timestamp),
  };
  for (const [key, value] of Object.entries(optional))
    if (value !== undefined) Object.assign(letter, { [key]: value });
  return letter;
}
