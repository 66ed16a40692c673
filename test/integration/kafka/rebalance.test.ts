import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { KafkaHandler } from '../../../runtime/kafka';
import { Harness, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * A rebalance on a real Kafka and the client KAFKA_CLIENT names: member B joins while member A's
 * batches run, takes some of A's partitions and commits far ahead on them, then leaves, and the
 * partitions come back to A. A must start from the group's commit: no record B handled runs again.
 * (Both clients keep a seek made for a partition that moves away, and apply it when the
 * partition comes back; so the runtime never seeks.)
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a partition that moves away and comes back (real Kafka)', () => {
  it('starts from the group’s commit: nothing the other member handled runs again', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('rebalance'))).open();
    const h = harness;
    const handled: Array<{ member: 'A' | 'B'; value: string; at: number }> = [];
    let slowA = true;
    const handlerOf =
      (member: 'A' | 'B'): KafkaHandler =>
      async (message) => {
        handled.push({ member, value: String(message.value), at: Date.now() });
        if (member === 'A' && slowA) await sleep(200);
      };
    let sent = 0;
    const send = async (count: number) => {
      const records = Array.from({ length: count }, (_, index) => {
        const n = sent + index;
        return { key: `k${n}`, value: `r${n}`, partition: n % 3 };
      });
      sent += count;
      await h.send(records);
    };
    const allHandled = () => new Set(handled.map((each) => each.value)).size === sent;

    // A reads all three partitions, slowly, one record at a time.
    await send(30);
    const a = await h.start({ handler: handlerOf('A'), concurrency: 1 });
    await waitFor(() => handled.length >= 2, 30_000, 'A running');
    // B joins while A's batches run: the group rebalances, and some of A's partitions go to B.
    const b = await h.start({ handler: handlerOf('B') });
    await waitFor(() => handled.some((each) => each.member === 'B'), 60_000, 'B handling');
    slowA = false;
    // B commits far ahead on its partitions.
    await send(300);
    await waitFor(allHandled, 60_000, 'every record, A and B');
    // B leaves: its partitions come back to A.
    await b.stop();
    const back = Date.now();
    await send(30);
    await waitFor(allHandled, 60_000, 'the last records, on A');
    await sleep(1_000);
    const byB = new Set(handled.filter((each) => each.member === 'B').map((each) => each.value));
    const againOnA = handled.filter((each) => each.member === 'A' && each.at >= back && byB.has(each.value));
    expect(againOnA.map((each) => each.value)).toEqual([]);
    await a.stop();
  });
});
