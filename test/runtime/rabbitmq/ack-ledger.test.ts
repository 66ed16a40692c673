import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AckInstruction, AckLedger } from '../../../runtime/rabbitmq/ack-ledger';

describe('AckLedger', () => {
  it('acks a finished run at the front with one multiple ack', () => {
    const ledger = new AckLedger();
    for (const tag of [1, 2, 3]) ledger.delivered(tag);
    for (const tag of [3, 1, 2]) ledger.finished(tag);
    expect(ledger.take()).toEqual([{ tag: 3, multiple: true }]);
    expect(ledger.take()).toEqual([]);
  });

  it('acks a finished delivery behind a running one on its own, and batches again once the front finishes', () => {
    const ledger = new AckLedger();
    for (const tag of [1, 2, 3, 4]) ledger.delivered(tag);
    ledger.finished(2);
    ledger.finished(3);
    expect(ledger.take()).toEqual([
      { tag: 2, multiple: false },
      { tag: 3, multiple: false },
    ]);
    ledger.finished(4);
    ledger.finished(1);
    // 2 and 3 are settled already; the ack for 4 covers 1 and 4, which are both finished.
    expect(ledger.take()).toEqual([{ tag: 4, multiple: true }]);
  });

  it('never batches across a tag it did not see (another consumer, a basic.get)', () => {
    const ledger = new AckLedger();
    ledger.delivered(1);
    ledger.delivered(2);
    // Tag 3 went to someone else and may still be unacked.
    ledger.delivered(4);
    ledger.delivered(5);
    for (const tag of [1, 2, 4, 5]) ledger.finished(tag);
    expect(ledger.take()).toEqual([
      { tag: 2, multiple: true },
      { tag: 4, multiple: false },
      { tag: 5, multiple: false },
    ]);
    ledger.delivered(6);
    ledger.delivered(7);
    ledger.finished(6);
    ledger.finished(7);
    expect(ledger.take()).toEqual([
      { tag: 6, multiple: false },
      { tag: 7, multiple: false },
    ]);
    // Nothing above the gap is kept once it is settled: the floor can never pass tag 3.
    expect(ledger.size).toBe(0);
  });

  it('attached to a channel that delivered before it existed, it acks one by one', () => {
    const ledger = new AckLedger();
    ledger.delivered(8);
    ledger.delivered(9);
    ledger.finished(8);
    ledger.finished(9);
    expect(ledger.take()).toEqual([
      { tag: 8, multiple: false },
      { tag: 9, multiple: false },
    ]);
  });

  it('never acks a rejected or nacked delivery, and batches past it', () => {
    const ledger = new AckLedger();
    for (const tag of [1, 2, 3]) ledger.delivered(tag);
    ledger.finished(1);
    ledger.settled(2);
    ledger.finished(3);
    expect(ledger.take()).toEqual([{ tag: 3, multiple: true }]);
  });

  it('never ends a multiple ack on a settled tag (the broker answers 406 for an unknown tag)', () => {
    const ledger = new AckLedger();
    for (const tag of [1, 2]) ledger.delivered(tag);
    ledger.finished(1);
    ledger.settled(2);
    expect(ledger.take()).toEqual([{ tag: 1, multiple: false }]);
  });
});

/**
 * A model of the broker's unacked deliveries on one channel (rabbit_channel, 3.10.8): a single
 * ack of a tag not unacked is a 406, a multiple ack settles every unacked tag up to it and is a
 * 406 when the tag itself is not unacked.
 */
type Owner = { kind: 'ours'; state: 'running' | 'finished' } | { kind: 'foreign' };

type Step =
  | { do: 'deliver-ours' }
  | { do: 'deliver-foreign'; noAck: boolean }
  | { do: 'finish'; pick: number }
  | { do: 'reject'; pick: number }
  | { do: 'foreign-ack'; pick: number }
  | { do: 'take' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.constant({ do: 'deliver-ours' as const }) },
  { weight: 1, arbitrary: fc.boolean().map((noAck) => ({ do: 'deliver-foreign' as const, noAck })) },
  { weight: 5, arbitrary: fc.nat().map((pick) => ({ do: 'finish' as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ do: 'reject' as const, pick })) },
  { weight: 1, arbitrary: fc.nat().map((pick) => ({ do: 'foreign-ack' as const, pick })) },
  { weight: 3, arbitrary: fc.constant({ do: 'take' as const }) },
);

function run(steps: Step[]) {
  const ledger = new AckLedger();
  const unacked = new Map<number, Owner>();
  let nextTag = 1;
  const acks: AckInstruction[] = [];

  const apply = (instructions: AckInstruction[]) => {
    for (const ack of instructions) {
      acks.push(ack);
      const target = unacked.get(ack.tag);
      if (!target) throw new Error(`406: ack of tag ${ack.tag}, which is not unacked`);
      const covered = ack.multiple ? [...unacked.keys()].filter((tag) => tag <= ack.tag) : [ack.tag];
      for (const tag of covered) {
        const owner = unacked.get(tag) as Owner;
        if (owner.kind === 'foreign') throw new Error(`ack ${ack.tag} settled foreign tag ${tag}`);
        if (owner.state !== 'finished') throw new Error(`ack ${ack.tag} settled running tag ${tag}`);
        unacked.delete(tag);
      }
    }
  };
  const pickOf = (pick: number, predicate: (owner: Owner) => boolean) => {
    const tags = [...unacked].filter(([, owner]) => predicate(owner)).map(([tag]) => tag);
    return tags.length === 0 ? undefined : tags[pick % tags.length];
  };

  for (const each of steps) {
    switch (each.do) {
      case 'deliver-ours': {
        const tag = nextTag++;
        unacked.set(tag, { kind: 'ours', state: 'running' });
        ledger.delivered(tag);
        break;
      }
      case 'deliver-foreign': {
        const tag = nextTag++;
        if (!each.noAck) unacked.set(tag, { kind: 'foreign' });
        break;
      }
      case 'finish': {
        const tag = pickOf(each.pick, (owner) => owner.kind === 'ours' && owner.state === 'running');
        if (tag === undefined) break;
        unacked.set(tag, { kind: 'ours', state: 'finished' });
        ledger.finished(tag);
        break;
      }
      case 'reject': {
        const tag = pickOf(each.pick, (owner) => owner.kind === 'ours' && owner.state === 'running');
        if (tag === undefined) break;
        unacked.delete(tag);
        ledger.settled(tag);
        break;
      }
      case 'foreign-ack': {
        const tag = pickOf(each.pick, (owner) => owner.kind === 'foreign');
        if (tag !== undefined) unacked.delete(tag);
        break;
      }
      case 'take':
        apply(ledger.take());
        break;
    }
  }
  // Everything of ours finishes: after one more take, only foreign deliveries are unacked.
  for (const [tag, owner] of unacked) {
    if (owner.kind === 'ours' && owner.state === 'running') {
      unacked.set(tag, { kind: 'ours', state: 'finished' });
      ledger.finished(tag);
    }
  }
  apply(ledger.take());
  return { unacked, acks, ledger };
}

describe('AckLedger against a model of the broker', () => {
  it('never acks a running or foreign delivery, never sends a 406, and acks everything of its own in the end', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), (steps) => {
        const { unacked, ledger } = run(steps);
        expect([...unacked.values()].every((owner) => owner.kind === 'foreign')).toBe(true);
        expect(ledger.pending).toBe(0);
        // Everything of its own is settled, so it remembers nothing, gaps or not.
        expect(ledger.size).toBe(0);
      }),
      { numRuns: 2_000 },
    );
  });

  it('with only its own deliveries, finished in order, it sends one ack per take', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 20 }), (batches) => {
        const steps: Step[] = batches.flatMap((size) => [
          ...Array.from({ length: size }, () => ({ do: 'deliver-ours' as const })),
          ...Array.from({ length: size }, () => ({ do: 'finish' as const, pick: 0 })),
          { do: 'take' as const },
        ]);
        const { acks } = run(steps);
        expect(acks).toHaveLength(batches.length);
      }),
    );
  });
});
