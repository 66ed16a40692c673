import { afterEach, expect, it } from 'vitest';
import type { KafkaRetryEvent } from '../../../runtime/kafka';
import { SourceProgress } from '../../../runtime/kafka/source-progress';
import { describePerKey, Harness, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * park-key started on a main group whose commit it did not write: a plain consumer's, one
 * MirrorMaker 2 synced from another cluster (it copies the commit's metadata unchanged next to
 * an offset it translated), or a damaged one. What is done past a commit is known only from a
 * mark this runtime wrote for that very offset, within the log; anything else means every record
 * from the commit is handled, the consumer keeps going, and the operator gets one warning line.
 */

let harness: Harness | undefined;
const warnings: Error[] = [];
const onWarning = (warning: Error) => void warnings.push(warning);
afterEach(async () => {
  process.off('warning', onWarning);
  warnings.length = 0;
  await harness?.close();
  harness = undefined;
});

/** Commits `offset` with `metadata` for the main group, as a member of it, then leaves. */
async function commitAs(h: Harness, offset: string, metadata: string | null) {
  const consumer = await h.consumer(h.target.consumerGroup);
  let joined = false;
  consumer.on(consumer.events.GROUP_JOIN, () => {
    joined = true;
  });
  await consumer.subscribe({ topics: [h.target.sourceTopic] });
  // Paused at once: this member reads nothing, it only commits.
  await consumer.run({ autoCommit: false, eachMessage: async ({ pause }) => void pause() });
  await waitFor(() => joined, 30_000, 'the committing member to join');
  await consumer.commitOffsets([{ topic: h.target.sourceTopic, partition: 0, offset, metadata }]);
  await consumer.disconnect();
}

/**
 * Sends `records` records to partition 0 (one key each), commits `offset` with `metadata`,
 * starts the runtime and returns the values it handled once `expected` of them are in.
 */
async function runFrom(name: string, records: number, offset: number, metadata: string, expected: number) {
  harness = await new Harness(kafkaPlan(uniqueName(name), { ordering: 'per-key' })).open();
  await harness.send(Array.from({ length: records }, (_, i) => ({ key: `order-${i}`, value: `r${i}` })));
  await commitAs(harness, String(offset), metadata);
  process.on('warning', onWarning);
  const handled: string[] = [];
  const events: KafkaRetryEvent[] = [];
  await harness.start({
    handler: async (message) => void handled.push(String(message.value)),
    onEvent: (event) => events.push(event),
  });
  await waitFor(() => handled.length >= expected, 30_000, `${expected} records`);
  const ignored = events.filter((event) => event.type === 'commit-ignored');
  return { handled, ignored };
}

const values = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `r${from + i}`);

describePerKey('park-key on a main group committed by something else', () => {
  it('a plain consumer’s commit, with its own metadata: every record from the commit is handled, one warning', async () => {
    const { handled, ignored } = await runFrom('plain-commit', 8, 3, 'checkpoint 42', 5);
    expect(handled).toEqual(values(3, 8));
    expect(ignored).toMatchObject([
      { partition: 0, offset: '3', metadata: 'checkpoint 42', reason: 'not-a-mark' },
    ]);
    const lines = warnings.filter(
      (w) => (w as { code?: string }).code === 'RETRY_TOPOLOGY_KAFKA_COMMIT_IGNORED',
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toMatch(
      /\[0\] at offset 3 has metadata "checkpoint 42", not written by this runtime; every record from offset 3 is handled again/,
    );
  });

  it('a mark written at another offset (MirrorMaker 2’s translated commit) says nothing: every record from the commit is handled', async () => {
    // Upstream, the commit was at 5, with 5 and 7 still queued and 6 and 8 done.
    const upstream = new SourceProgress(5n);
    upstream.hold(5n);
    upstream.finish(6n);
    upstream.hold(7n);
    upstream.finish(8n);
    const mark = upstream.mark();
    expect(mark.offset).toBe(5n);
    // Downstream the same metadata arrives with offset 2: 2 to 9 must all run.
    const { handled, ignored } = await runFrom('moved-mark', 10, 2, mark.metadata, 8);
    expect(handled).toEqual(values(2, 10));
    expect(ignored).toMatchObject([{ offset: '2', metadata: mark.metadata, reason: 'other-offset' }]);
  });

  it('a mark for this offset that says records past the log end are done: they run when they come', async () => {
    // At offset 2, "2 pending, 3 to 40 done", on a log that ends at 6.
    const { handled, ignored } = await runFrom('past-end', 6, 2, `rt2:2:${(39).toString(36)}:`, 4);
    await harness?.send([7, 8, 9].map((i) => ({ key: `order-${i}`, value: `r${i}` })));
    await waitFor(() => handled.length >= 7, 30_000, 'the records sent after the start');
    expect(handled).toEqual([...values(2, 6), 'r7', 'r8', 'r9']);
    expect(ignored).toMatchObject([{ offset: '2', reason: 'past-log-end' }]);
  });

  it('a damaged mark: every record from the commit is handled', async () => {
    const { handled, ignored } = await runFrom('damaged', 6, 1, 'rt2:1:4:0.0', 5);
    expect(handled).toEqual(values(1, 6));
    expect(ignored).toMatchObject([{ offset: '1', reason: 'damaged' }]);
  });
});
