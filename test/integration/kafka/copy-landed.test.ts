import { afterEach, describe, expect, it } from 'vitest';
import type { ProducerLike } from '../../../runtime/kafka';
import { Harness, http503, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * park-key when a record's copy reached the retry chain but its source commit did not (the
 * produce's reply was lost, or the process died between the two). The record is in the chain:
 * the retry consumer handles the copy, so the source record is done. Handling it again from
 * the source would be a duplicate, and would come after its own retry, possibly after the key's
 * later records.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Every handler call as `value#attempt`, in order; the named records fail that many times. */
function recorder(failures: Record<string, number>) {
  const calls: string[] = [];
  const tries = new Map<string, number>();
  return {
    calls,
    handler: async (message: { value: Buffer | null }, context: { attempt: number }) => {
      const id = String(message.value);
      calls.push(`${id}#${context.attempt}`);
      const tried = (tries.get(id) ?? 0) + 1;
      tries.set(id, tried);
      if (tried <= (failures[id] ?? 0)) throw http503();
    },
  };
}

const plan = (name: string, maxAttempts = 2) =>
  kafkaPlan(uniqueName(name), {
    ordering: 'per-key',
    maxAttempts,
    backoff: { type: 'list', delays: Array.from({ length: maxAttempts - 1 }, () => '1s') },
  });

describe('park-key: a copy in the chain whose source commit did not land', () => {
  const start = (h: Harness, options: Parameters<Harness['startChain']>[0]) => h.startChain(options);
  it('a produce whose reply was lost: the record is not handled again from the source', async () => {
    harness = await new Harness(plan('lost-ack')).open();
    const real = harness.producer;
    let lose = true;
    // A0's first copy lands; its acknowledgement does not reach the runtime.
    const lossy: ProducerLike = {
      send: async (record) => {
        const result = await real.send(record);
        if (lose && record.messages.some((m) => String(m.value) === 'A0')) {
          lose = false;
          throw new Error('REQUEST_TIMED_OUT (simulated: the copy landed, the reply did not)');
        }
        return result;
      },
    };
    const orders = recorder({ A0: 1 });
    await start(harness, {
      handler: orders.handler,
      producer: lossy,
      failureBackoff: { initialMs: 300, maxMs: 1_000 },
    });
    await harness.send([
      { key: 'order-A', value: 'A0' },
      { key: 'order-A', value: 'A1' },
    ]);
    await waitFor(() => orders.calls.includes('A1#1'), 30_000, 'A1');
    // Time for a duplicate of A0 to show up, were it coming.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(orders.calls).toEqual(['A0#1', 'A0#2', 'A1#1']);
  });

  it('a released record whose copy landed but whose commit did not: not handled again after its retry', async () => {
    harness = await new Harness(plan('released-crash')).open();
    const orders = recorder({ A0: 1, A1: 1 });
    let crash = true;
    await start(harness, {
      handler: orders.handler,
      failureBackoff: { initialMs: 300, maxMs: 1_000 },
      // A1, released from its queue behind A0, fails: its copy is acked, then the commit is lost.
      afterCopyProduced: ({ offset, topic }) => {
        if (crash && offset === '1' && topic === harness?.target.sourceTopic) {
          crash = false;
          throw new Error('simulated: the commit after the copy was lost (a crash, a rebalance)');
        }
      },
    });
    await harness.send(['A0', 'A1', 'A2'].map((value) => ({ key: 'order-A', value })));
    await waitFor(() => orders.calls.includes('A2#1'), 30_000, 'A2');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(orders.calls).toEqual(['A0#1', 'A0#2', 'A1#1', 'A1#2', 'A2#1']);
  });

  it('a retry copy whose next copy landed before the process died: the next process does not run the step again', async () => {
    harness = await new Harness(plan('retry-crash', 3)).open();
    const level1 = harness.target.levels[0]?.destination;
    const orders = recorder({ A0: 2 });
    let crashed = false;
    // Process 1: A0's attempt 2, read from level 1, fails; its copy to level 2 is acked, and the
    // process dies before committing level 1 (the hook throws; a long back-off keeps it still).
    const dying = await start(harness, {
      handler: orders.handler,
      failureBackoff: { initialMs: 60_000, maxMs: 60_000 },
      afterCopyProduced: ({ topic }) => {
        if (topic !== level1) return;
        crashed = true;
        throw new Error('simulated: killed after the copy, before the commit');
      },
    });
    await harness.send(['A0', 'A1'].map((value) => ({ key: 'order-A', value })));
    await waitFor(() => crashed, 30_000, 'the crash');
    await dying.stop();
    // Process 2 reads level 1 from the commit: A0's attempt-2 copy again, and the attempt-3 copy.
    await start(harness, { handler: orders.handler });
    await waitFor(() => orders.calls.includes('A1#1'), 30_000, 'A1');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(orders.calls).toEqual(['A0#1', 'A0#2', 'A0#3', 'A1#1']);
  });
});
