import { describe, expect, it } from 'vitest';
import { ChainView } from '../../../runtime/kafka/chain-view';
import type { AdminLike } from '../../../runtime/kafka/contract';
import { KAFKA_HEADERS } from '../../../runtime/kafka/headers';
import { FakeClock, flush } from '../../support/fake-clock';
import { FakeConsumer } from './fakes';

const L1 = 'p.retry.1';

/** An admin whose committed offsets and log ends the test sets, and which logs the calls in order. */
class FakeAdmin implements AdminLike {
  committed = -1;
  high = 0;
  readonly calls: string[] = [];
  async listTopics() {
    return [];
  }
  async createTopics() {
    return true;
  }
  async fetchTopicMetadata() {
    return { topics: [] };
  }
  async fetchOffsets() {
    this.calls.push('committed');
    return [{ topic: L1, partitions: [{ partition: 0, offset: String(this.committed) }] }];
  }
  async fetchTopicOffsets() {
    this.calls.push('ends');
    return [{ partition: 0, high: String(this.high), low: '0' }];
  }
}

async function setUp() {
  const clock = new FakeClock();
  const admin = new FakeAdmin();
  const reader = new FakeConsumer();
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
  const copy = (offset: number, key: string, sequence: number) =>
    reader.deliver(L1, 0, {
      offset: String(offset),
      key: Buffer.from(key),
      headers: { [KAFKA_HEADERS.originalOffset]: Buffer.from(String(sequence)) },
    });
  return { clock, admin, reader, view, copy };
}

const keyId = (key: string) => Buffer.from(key).toString('base64');

describe('ChainView', () => {
  it('starts reading where the chain starts: the retry group’s committed offset', async () => {
    const { reader } = await setUp();
    expect(reader.log).toContain(`seek ${L1}[0]@0`);
  });

  it('reads committed offsets before log ends, and waits until the reader has read up to the end', async () => {
    const { admin, view, copy } = await setUp();
    admin.calls.length = 0;
    admin.high = 2;
    let done = false;
    const snapshot = view.fresh().then(() => {
      done = true;
    });
    await flush();
    expect(admin.calls).toEqual(['committed', 'ends']);
    await copy(0, 'a', 10);
    await flush();
    expect(done).toBe(false);
    await copy(1, 'b', 11);
    await snapshot;
    expect(view.index.chainOf(0, keyId('a'))).toHaveLength(1);
  });

  it('drops copies the retry group has committed past: they have left the chain', async () => {
    const { admin, view, copy } = await setUp();
    admin.high = 2;
    await copy(0, 'a', 10);
    await copy(1, 'a', 12);
    await view.fresh();
    expect(view.index.chainOf(0, keyId('a'))).toHaveLength(2);
    admin.committed = 1;
    await view.fresh();
    expect(view.index.chainOf(0, keyId('a')).map((e) => e.sequence)).toEqual([12]);
  });

  it('gives up after the catch-up timeout with chain-view-failed, and sends the reader back', async () => {
    const { admin, view, clock, reader } = await setUp();
    admin.high = 5;
    reader.log.length = 0;
    const snapshot = view.fresh().catch((error: unknown) => error);
    await clock.advance(1_000);
    expect(await snapshot).toMatchObject({ code: 'chain-view-failed' });
    expect(reader.log).toEqual([`seek ${L1}[0]@0`]);
  });

  it('joins callers to a snapshot that has not begun, never to one already running', async () => {
    const { admin, view } = await setUp();
    admin.calls.length = 0;
    await Promise.all([view.fresh(), view.fresh(), view.fresh()]);
    expect(admin.calls).toEqual(['committed', 'ends']);
  });
});
