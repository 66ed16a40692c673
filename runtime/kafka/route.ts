import { describeError, HEADERS } from '../dead-letter';
import type { FinalDecision } from '../run-handler';
import type { Delivery, Reading, Runtime } from './delivery';
import { KafkaRetryError } from './errors';
import {
  type CopyHeaders,
  deadLetterCopyHeaders,
  firstFailureAt,
  parkedCopyHeaders,
  retryCopyHeaders,
} from './headers';
import type { Placement } from './parking';
import { commitPast, produceCopy } from './produce';

/**
 * Carrying a decision out on Kafka, always in the same order: produce the copy (acks -1), run
 * the fault hook, commit. Anything that throws before the commit leaves the record uncommitted.
 */

/** Parks the record behind the head of its key: a copy into the head's topic, then the commit. */
export async function parkCopy(
  rt: Runtime,
  d: Delivery,
  reading: Reading,
  placement: Extract<Placement, { kind: 'park' }>,
): Promise<void> {
  const headers = parkedCopyHeaders({
    incoming: d.message.headers,
    origin: reading.origin,
    attempt: reading.attempt,
    notBefore: placement.notBefore,
  });
  await copyThenCommit(rt, d, placement.topic, headers, reading, placement.notBefore);
  rt.countParked(d.role);
}

/** Returns the topic a copy went to, if any. */
export async function carryOut(
  rt: Runtime,
  d: Delivery,
  reading: Reading,
  decision: FinalDecision,
  error: unknown,
): Promise<string | undefined> {
  switch (decision.kind) {
    case 'ack':
      await commit(rt, d);
      return undefined;
    case 'requeue':
      // The runtime is stopping in the middle of an in-memory wait: leave the record uncommitted.
      d.gate.park(d.topic, d.partition, d.message.offset);
      return undefined;
    case 'delayed':
    case 'dead-letter': {
      const copy = copyOf(rt, d, reading, decision, error);
      await copyThenCommit(rt, d, copy.destination, copy.headers, reading, copy.notBefore);
      return copy.destination;
    }
  }
}

/** The copy a decision asks for: where it goes, its headers, and (retry copies) when it is due. */
export interface Copy {
  destination: string;
  headers: CopyHeaders;
  notBefore?: number;
}

/**
 * The copy of the record a retry or dead-letter decision asks for. Pure, so a copy can be built
 * apart from its send, with the same headers (the application's kept, ours replaced) either way.
 */
export function copyOf(
  rt: Runtime,
  d: Delivery,
  reading: Reading,
  decision: Extract<FinalDecision, { kind: 'delayed' | 'dead-letter' }>,
  error: unknown,
): Copy {
  const now = rt.clock.now();
  if (decision.kind === 'delayed') {
    const notBefore = now + decision.delayMs;
    const headers = retryCopyHeaders({
      incoming: d.message.headers,
      origin: reading.origin,
      nextAttempt: decision.nextAttempt,
      notBefore,
      firstFailureAt: firstFailureAt(d.message.headers, now),
      ...(reading.invalid === undefined ? {} : { attemptInvalid: reading.invalid }),
    });
    return { destination: decision.destination, headers, notBefore };
  }
  const { name, message } = describeError(error);
  const headers = deadLetterCopyHeaders({
    incoming: d.message.headers,
    origin: reading.origin,
    info: {
      reason: decision.reason,
      because: decision.because,
      errorName: name,
      errorMessage: message,
      attempt: reading.attempt,
      source: d.topic,
      firstFailureAt: firstFailureAt(d.message.headers, now),
      deadLetteredAt: now,
      ...(reading.invalid === undefined ? {} : { attemptInvalid: reading.invalid }),
    },
  });
  return { destination: rt.rules.deadLetterTopic, headers };
}

/**
 * The commit discipline: produce the copy (with the plan's acks, -1 unless the policy lowers it), and only once it is acked commit past
 * the record. A failed produce throws before the commit; so does the fault hook.
 */
async function copyThenCommit(
  rt: Runtime,
  d: Delivery,
  destination: string,
  headers: CopyHeaders,
  reading: Reading,
  notBefore: number | undefined,
): Promise<void> {
  const { key, value } = d.message;
  const offset = await produceCopy(
    rt.producer,
    rt.client,
    destination,
    {
      key,
      value,
      headers,
      partition: d.partition,
    },
    rt.rules.producer.acks,
  );
  if (rt.ordering && key && destination !== rt.rules.deadLetterTopic) {
    rt.ordering.produced({
      topic: destination,
      partition: d.partition,
      ...(offset === undefined ? {} : { offset }),
      keyId: key.toString('base64'),
      ...(reading.sequence === undefined ? {} : { sequence: reading.sequence }),
      ...(notBefore === undefined ? {} : { notBefore }),
      ...carried(headers),
      producedAt: rt.clock.now(),
    });
  }
  try {
    await rt.afterCopyProduced?.({
      topic: d.topic,
      partition: d.partition,
      offset: d.message.offset,
      destination,
    });
  } catch (cause) {
    throw new KafkaRetryError('step-failed', 'the after-copy hook failed before the commit', { cause });
  }
  await commit(rt, d);
}

/** The copy's first-failure time, which the chain compares across copies of one record. */
function carried(headers: CopyHeaders): { firstFailureAt?: number } {
  const value = Number(String(headers[HEADERS.firstFailureAt] ?? ''));
  return Number.isSafeInteger(value) && value > 0 ? { firstFailureAt: value } : {};
}

/**
 * Commits past the record (park-key source records: the partition's progress, with what is
 * done past a queued record). A failed commit is reported and not retried: commits are
 * cumulative, so the next record's commit covers this one, and if none comes (a rebalance, a
 * crash) the record is read again: a duplicate, never a loss.
 */
export async function commit(rt: Runtime, d: Delivery): Promise<void> {
  try {
    if (d.lane) await d.lane.finish(d.message.offset);
    else {
      await commitPast(d.consumer, d.topic, d.partition, d.message.offset);
      if (d.role === 'retry') rt.ordering?.retryCommitted(d.topic, d.partition, d.message.offset);
    }
  } catch (error) {
    rt.emit({
      type: 'failed',
      role: d.role,
      topic: d.topic,
      partition: d.partition,
      offset: d.message.offset,
      error: error as KafkaRetryError,
    });
  }
}
