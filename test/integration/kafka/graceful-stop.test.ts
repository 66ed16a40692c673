import { afterEach, describe, expect, it } from 'vitest';
import type { KafkaHandler } from '../../../runtime/kafka';
import { Harness, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * A rolling deploy on a real Kafka and the client KAFKA_CLIENT names: stop() while handlers run.
 * A handler that honours the stop signal rejects; that is the consumer's doing, never the
 * record's, so nothing is copied, dead-lettered or committed, and the next consumer runs every
 * record again at attempt 1. A handler that ignores the signal is left at stop()'s deadline.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const RECORDS = 40;
// The stop comes once a handler runs: the Confluent client's first batches hold one record each,
// and KafkaJS's hold a partition's whole backlog, so how many run by then depends on the client.
const shapes: Array<[string, (signal: AbortSignal) => unknown]> = [
  ['the signal’s reason (as fetch does)', (signal) => signal.reason],
  ['an AbortError (as timers/promises and drivers do)', () => new DOMException('aborted', 'AbortError')],
];

/** A handler that records each delivery and waits on the stop signal, then rejects with `rejection`. */
function honouring(rejection: (signal: AbortSignal) => unknown) {
  const started: string[] = [];
  const handler: KafkaHandler = (message, { signal }) => {
    started.push(String(message.value));
    return new Promise<void>((_resolve, reject) => {
      if (signal.aborted) reject(rejection(signal));
      else signal.addEventListener('abort', () => reject(rejection(signal)), { once: true });
    });
  };
  return { started, handler };
}

/** A handler that records each delivery (id and attempt) and succeeds. */
function recording() {
  const seen: Array<{ id: string; attempt: number }> = [];
  const handler: KafkaHandler = async (message, { attempt }) => {
    seen.push({ id: String(message.value), attempt });
  };
  return { seen, handler };
}

/** Records in the plan's retry and dead-letter topics. */
async function copies(h: Harness): Promise<number> {
  let total = 0;
  for (const topic of [...h.target.levels.map((level) => level.destination), h.target.deadLetterTopic]) {
    for (const each of await h.admin.fetchTopicOffsets(topic)) total += Number(each.high);
  }
  return total;
}

const ids = Array.from({ length: RECORDS }, (_, index) => `r-${index}`);

async function sendAll(h: Harness) {
  await h.send(ids.map((id, index) => ({ key: `k-${index}`, value: id, partition: index % 3 })));
}

describe('stop() while handlers run (real Kafka)', () => {
  it.each(shapes)(
    'a handler that honours the stop and rejects with %s: nothing copied or dead-lettered, all run again at attempt 1',
    async (_shape, rejection) => {
      harness = await new Harness(kafkaPlan(uniqueName('stop'))).open();
      const first = honouring(rejection);
      // Sent first, so that each partition's first batch holds all its records.
      await sendAll(harness);
      const stopping = await harness.start({ handler: first.handler });
      await waitFor(() => first.started.length >= 1, 30_000, 'a handler running');
      await stopping.stop();

      const second = recording();
      await harness.start({ handler: second.handler });
      await waitFor(
        () => new Set(second.seen.map((each) => each.id)).size === RECORDS,
        60_000,
        'every record',
      );
      expect([...new Set(second.seen.map((each) => each.id))].sort()).toEqual([...ids].sort());
      expect(second.seen.filter((each) => each.attempt !== 1)).toEqual([]);
      expect(await copies(harness)).toBe(0);
    },
  );

  it('per-key order: the same, on the one consumer that reads the chain', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('stop-key'), { ordering: 'per-key' })).open();
    const first = honouring((signal) => signal.reason);
    await sendAll(harness);
    const stopping = await harness.startChain({ handler: first.handler });
    await waitFor(() => first.started.length >= 1, 30_000, 'a handler running');
    await stopping.stop();

    const second = recording();
    await harness.startChain({ handler: second.handler });
    await waitFor(() => new Set(second.seen.map((each) => each.id)).size === RECORDS, 60_000, 'every record');
    expect(second.seen.filter((each) => each.attempt !== 1)).toEqual([]);
    expect(await copies(harness)).toBe(0);
  });

  it('a handler that ignores the signal is left at the deadline: stop() resolves, and its later failure copies nothing', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('stop-deadline'))).open();
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started: string[] = [];
    await sendAll(harness);
    const stopping = await harness.start({
      stopTimeoutMs: 500,
      handler: async (message) => {
        started.push(String(message.value));
        await released;
        throw new Error('an unknown error, after the deadline');
      },
    });
    await waitFor(() => started.length >= 1, 30_000, 'a handler running');
    // Resolves while every handler is still blocked.
    await stopping.stop();
    release();

    const second = recording();
    await harness.start({ handler: second.handler });
    await waitFor(() => new Set(second.seen.map((each) => each.id)).size === RECORDS, 60_000, 'every record');
    expect(second.seen.filter((each) => each.attempt !== 1)).toEqual([]);
    expect(await copies(harness)).toBe(0);
  });
});
