import { afterEach, describe, expect, it } from 'vitest';
import { Harness, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * park-key started on a main group whose commit it did not write: a plain consumer's, one
 * MirrorMaker 2 synced from another cluster (it copies the commit's metadata unchanged next to an
 * offset it translated), or a damaged one. The runtime reads no commit metadata and writes none:
 * whatever a commit carries, every record from its offset is handled, and none below it.
 */

let harness: Harness | undefined;
afterEach(async () => {
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

const values = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `r${from + i}`);

describe('park-key on a main group committed by something else', () => {
  it.each([
    { what: 'a plain consumer’s commit with its own metadata', metadata: 'checkpoint 42' },
    // What the earlier engine wrote: 5 and 7 still queued, 6 and 8 done, read at another offset.
    { what: 'a mark of the earlier engine, moved to another offset', metadata: 'rt2:5:4:2' },
    { what: 'a damaged mark', metadata: 'rt2:1:4:0.0' },
  ])('$what: every record from the commit is handled, none below it', async ({ metadata }) => {
    harness = await new Harness(kafkaPlan(uniqueName('foreign'), { ordering: 'per-key' })).open();
    await harness.send(Array.from({ length: 8 }, (_, i) => ({ key: `order-${i}`, value: `r${i}` })));
    await commitAs(harness, '2', metadata);
    const handled: string[] = [];
    await harness.startChain({ handler: async (message) => void handled.push(String(message.value)) });
    await waitFor(() => handled.length >= 6, 30_000, '6 records');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect([...handled].sort()).toEqual(values(2, 8));
  });
});
