import { describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime/dead-letter';
import { ChainView } from '../../../runtime/kafka/chain-view';
import type { AdminLike, ConsumedMessage } from '../../../runtime/kafka/contract';
import { KAFKA_HEADERS } from '../../../runtime/kafka/headers';
import { type IgnoredMark, KeyOrdering } from '../../../runtime/kafka/ordering';
import { FakeClock, flush } from '../../support/fake-clock';
import { FakeConsumer } from './fakes';

const SOURCE = 'p.in';
const L1 = 'p.retry.1';

/** The retry group's commit and log end on L1, and the main group's commit on the source. */
class FakeAdmin implements AdminLike {
  retryCommitted = -1;
  high = 0;
  main: { offset: string; metadata: string | null } = { offset: '-1', metadata: null };
  snapshots = 0;
  /** Runs while the main group's commit is being read, before it is read. */
  duringMainFetch?: () => Promise<void>;
  async listTopics() {
    return [];
  }
  async createTopics() {
    return true;
  }
  async fetchOffsets({ groupId }: { groupId: string }) {
    if (groupId === 'g') {
      await this.duringMainFetch?.();
      return [{ topic: SOURCE, partitions: [{ partition: 0, ...this.main }] }];
    }
    this.snapshots++;
    return [{ topic: L1, partitions: [{ partition: 0, offset: String(this.retryCommitted) }] }];
  }
  /** The source partition's log end. */
  sourceHigh = 1_000;
  async fetchTopicOffsets(topic: string) {
    return [{ partition: 0, high: String(topic === SOURCE ? this.sourceHigh : this.high), low: '0' }];
  }
}

interface Record {
  consumer: FakeConsumer;
  topic: string;
  partition: number;
  message: ConsumedMessage;
}

async function setUp(maxQueued = 100) {
  const clock = new FakeClock();
  const admin = new FakeAdmin();
  const reader = new FakeConsumer();
  const main = new FakeConsumer();
  const view = new ChainView({
    admin,
    consumer: reader,
    retryGroup: 'g.retry',
    retryTopics: [L1],
    client: 'kafkajs',
    clock,
    catchUpTimeoutMs: 1_000,
  });
  await view.start();
  admin.snapshots = 0;
  const released: string[] = [];
  const ignored: IgnoredMark[] = [];
  const settled: string[] = [];
  const ordering: KeyOrdering<Record> = new KeyOrdering<Record>({
    view,
    clock,
    admin,
    mainGroup: 'g',
    maxQueued,
    refreshMs: 200,
    retryReleaseInMs: () => 500,
    ignoredMark: (at) => ignored.push(at),
    settle: async (record) => {
      settled.push(record.message.offset);
      await ordering.laneOf(0)?.finish(record.message.offset);
    },
    release: async (record) => {
      released.push(record.message.offset);
      await ordering.laneOf(0)?.finish(record.message.offset);
      return true;
    },
  });
  const record = (offset: number, key: string): Record => ({
    consumer: main,
    topic: SOURCE,
    partition: 0,
    message: { key: Buffer.from(key), value: null, timestamp: '0', offset: String(offset) },
  });
  /** The retry consumer's copy of source record `sequence`, at `offset` in L1, as the reader reads it. */
  const inChain = async (
    offset: number,
    key: string,
    sequence: number,
    copy: { firstFailureAt?: number; timestamp?: number } = {},
  ) => {
    admin.high = Math.max(admin.high, offset + 1);
    await reader.deliver(L1, 0, {
      offset: String(offset),
      key: Buffer.from(key),
      timestamp: String(copy.timestamp ?? 0),
      headers: {
        [KAFKA_HEADERS.originalOffset]: Buffer.from(String(sequence)),
        ...(copy.firstFailureAt === undefined
          ? {}
          : { [HEADERS.firstFailureAt]: Buffer.from(String(copy.firstFailureAt)) }),
      },
    });
  };
  return { clock, admin, main, view, ordering, released, ignored, settled, record, inChain };
}

const id = (key: string) => Buffer.from(key).toString('base64');

describe('KeyOrdering', () => {
  it('queues a record whose key is in the chain, with no snapshot, and releases it when this process commits the head', async () => {
    const { admin, main, ordering, released, record, inChain } = await setUp();
    const lane = () => ordering.laneOf(0);
    expect(await ordering.fromSource(record(5, 'a'), id('a'))).toEqual({ kind: 'handle' });
    expect(admin.snapshots).toBe(1); // the first record of the partition
    await inChain(0, 'a', 5); // record 5 failed: its copy sits in L1
    await lane()?.finish('5');
    expect(await ordering.fromSource(record(6, 'b'), id('b'))).toEqual({ kind: 'handle' });
    await lane()?.finish('6');
    expect(await ordering.fromSource(record(7, 'a'), id('a'))).toEqual({ kind: 'queue', behind: 5 });
    expect(await ordering.fromSource(record(8, 'a'), id('a'))).toEqual({ kind: 'queue', behind: 5 });
    expect(await ordering.fromSource(record(9, 'b'), id('b'))).toEqual({ kind: 'handle' });
    await lane()?.finish('9');
    expect(admin.snapshots).toBe(1); // a healthy key and a busy key cost no round trip
    // The commit stays below the queued records; its metadata says 9 is done.
    expect(main.log.at(-1)).toBe(`commit ${SOURCE}[0]@7`);

    ordering.retryCommitted(L1, 0, '0'); // record 5 succeeded on its retry
    await flush();
    expect(released).toEqual(['7', '8']);
    expect(main.log.at(-1)).toBe(`commit ${SOURCE}[0]@10`);
  });

  it('releases a key another process freed at the next refresh of the view', async () => {
    const { admin, clock, ordering, released, record, inChain } = await setUp();
    await ordering.fromSource(record(5, 'a'), id('a'));
    await inChain(0, 'a', 5);
    await ordering.fromSource(record(6, 'a'), id('a'));
    admin.retryCommitted = 1; // another member's retry consumer committed past the copy
    await clock.advance(199);
    expect(released).toEqual([]);
    await clock.advance(1);
    await flush();
    expect(released).toEqual(['6']);
  });

  it('skips what a previous owner finished, and queues again what it had queued', async () => {
    const { admin, ordering, record, inChain } = await setUp();
    admin.main = { offset: '7', metadata: 'rt2:7:3:2' }; // 7 and 9 queued, 8 done
    await inChain(0, 'a', 4);
    expect(await ordering.fromSource(record(7, 'a'), id('a'))).toEqual({ kind: 'queue', behind: 4 });
    expect(await ordering.fromSource(record(8, 'b'), id('b'))).toEqual({ kind: 'skip' });
    expect(await ordering.fromSource(record(9, 'c'), id('c'))).toEqual({ kind: 'handle' });
  });

  it('takes a record whose own copy is in the chain as done, unless the copy is older than the record', async () => {
    const { ordering, record, inChain } = await setUp();
    await inChain(0, 'a', 7); // a copy of source record 7, produced at timestamp 0
    expect(await ordering.fromSource(record(7, 'a'), id('a'))).toEqual({ kind: 'in-chain' });
    // Record 9 of key b: a copy with sequence 9 from before the record existed (the topic was
    // deleted and made again): not this record's, so it waits behind it rather than being lost.
    await inChain(1, 'b', 9);
    const later = { ...record(9, 'b'), message: { ...record(9, 'b').message, timestamp: '5000' } };
    expect(await ordering.fromSource(later, id('b'))).toEqual({ kind: 'queue', behind: 9 });
  });

  it('reports a commit whose metadata is not its mark for that offset, and handles every record from it', async () => {
    const { admin, ordering, ignored, record } = await setUp();
    admin.main = { offset: '7', metadata: 'rt2:5:4:2' }; // written at 5, moved to 7
    expect(await ordering.fromSource(record(7, 'a'), id('a'))).toEqual({ kind: 'handle' });
    expect(await ordering.fromSource(record(8, 'b'), id('b'))).toEqual({ kind: 'handle' });
    expect(ignored).toEqual([
      { topic: SOURCE, partition: 0, offset: '7', metadata: 'rt2:5:4:2', reason: 'other-offset' },
    ]);
  });

  it('ignores a mark that says records past the log end are done', async () => {
    const { admin, ordering, ignored, record } = await setUp();
    admin.main = { offset: '7', metadata: 'rt2:7:3:2' }; // 7 and 9 queued, 8 done: the log reaches 10
    admin.sourceHigh = 9;
    expect(await ordering.fromSource(record(7, 'a'), id('a'))).toEqual({ kind: 'handle' });
    expect(await ordering.fromSource(record(8, 'b'), id('b'))).toEqual({ kind: 'handle' });
    expect(ignored.map((each) => each.reason)).toEqual(['past-log-end']);
  });

  it('keeps its queued records when a commit of its own lands while it reads the group’s commit back', async () => {
    const { admin, main, ordering, released, record, inChain } = await setUp();
    // Commits land at the broker at once; their replies come a moment later.
    const log = main.commitOffsets.bind(main);
    main.commitOffsets = async (offsets) => {
      for (const o of offsets) admin.main = { offset: o.offset, metadata: o.metadata ?? null };
      await log(offsets);
      await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await ordering.fromSource(record(5, 'a'), id('a'));
    await inChain(0, 'a', 5);
    await ordering.laneOf(0)?.finish('5');
    expect(await ordering.fromSource(record(6, 'a'), id('a'))).toEqual({ kind: 'queue', behind: 5 });
    await ordering.fromSource(record(7, 'b'), id('b'));
    await inChain(1, 'b', 7);
    await ordering.laneOf(0)?.finish('7');
    expect(await ordering.fromSource(record(8, 'b'), id('b'))).toEqual({ kind: 'queue', behind: 7 });
    // Offset 9 is a transaction marker: 10 is a jump, and the group's commit is read back. Right
    // then record 5 leaves the chain, 6 is released, and its commit lands.
    admin.duringMainFetch = async () => {
      admin.duringMainFetch = undefined;
      ordering.retryCommitted(L1, 0, '0');
      await flush();
    };
    expect(await ordering.fromSource(record(10, 'c'), id('c'))).toEqual({ kind: 'handle' });
    await ordering.laneOf(0)?.finish('10');
    ordering.retryCommitted(L1, 0, '1'); // record 7 leaves the chain
    await flush();
    // Until 8's release and its commit's reply (20 ms each, chained), however slow the machine.
    for (let waited = 0; (released.length < 2 || admin.main.offset !== '11') && waited < 10_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    // 8 waited in this process's memory all along: released when 7 left, and nothing re-read.
    expect(released).toEqual(['6', '8']);
    expect(main.log.filter((line) => line.startsWith('seek'))).toEqual([]);
    expect(admin.main.offset).toBe('11');
  });

  it('parks the key’s queued records, then the new one, when the partition’s queue is full', async () => {
    const { ordering, record, inChain } = await setUp(2);
    await ordering.fromSource(record(5, 'a'), id('a'));
    await inChain(0, 'a', 5);
    await ordering.fromSource(record(6, 'a'), id('a'));
    await ordering.fromSource(record(7, 'a'), id('a'));
    const decision = await ordering.fromSource(record(8, 'a'), id('a'));
    expect(decision.kind).toBe('park');
    if (decision.kind !== 'park') return;
    expect(decision.queued.map((each) => each.message.offset)).toEqual(['6', '7']);
    expect(decision.placement).toMatchObject({ topic: L1, head: { sequence: 5 } });
  });

  it('takes a snapshot for a retry-topic record only on a new partition, or when the view shows an older record or the copy was parked', async () => {
    const { admin, ordering, inChain } = await setUp();
    await inChain(0, 'a', 5);
    const before = admin.snapshots;
    // The first record of a partition: a member that died there may have moved it on.
    expect(await ordering.inChain(0, id('a'), 5, false, copyAt(0))).toEqual({ kind: 'handle' });
    expect(admin.snapshots).toBe(before + 1);
    // Read again after a hold: the view at hand.
    expect(await ordering.inChain(0, id('a'), 5, false, copyAt(0))).toEqual({ kind: 'handle' });
    expect(admin.snapshots).toBe(before + 1);
    expect(await ordering.inChain(0, id('a'), 5, true, copyAt(1))).toEqual({ kind: 'handle' });
    expect(admin.snapshots).toBe(before + 2);
    expect(await ordering.inChain(0, id('a'), 9, false, copyAt(2))).toMatchObject({ kind: 'park' });
    expect(admin.snapshots).toBe(before + 3);
  });

  it('takes a copy whose next copy is in the chain as superseded, and only a copy of the same record', async () => {
    const { ordering, inChain } = await setUp();
    // Record 5 of key a failed first at 1000: its copy at 0, and the next one at 1 (produced later).
    await inChain(0, 'a', 5, { firstFailureAt: 1_000, timestamp: 2_000 });
    await inChain(1, 'a', 5, { firstFailureAt: 1_000, timestamp: 3_000 });
    expect(await ordering.inChain(0, id('a'), 5, false, copyAt(0, 2_000, 1_000))).toEqual({
      kind: 'superseded',
    });
    // The newest copy is not superseded by the older one, nor by itself.
    expect(await ordering.inChain(0, id('a'), 5, false, copyAt(1, 3_000, 1_000))).toEqual({ kind: 'handle' });
    // Another record with that offset and key (a topic made again) failed at another time.
    expect(await ordering.inChain(0, id('a'), 5, false, copyAt(0, 2_000, 999))).toEqual({ kind: 'handle' });
    // Without a first-failure time nothing is superseded.
    expect(await ordering.inChain(0, id('a'), 5, false, copyAt(0, 2_000))).toEqual({ kind: 'handle' });
  });
});

/** A due copy read from L1 partition 0. */
function copyAt(offset: number, timestamp = 0, firstFailureAt?: number) {
  return {
    topic: L1,
    offset: String(offset),
    timestamp: String(timestamp),
    ...(firstFailureAt === undefined ? {} : { firstFailureAt }),
  };
}
