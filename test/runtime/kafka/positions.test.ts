import { describe, expect, it } from 'vitest';
import { Positions } from '../../../runtime/kafka/positions';
import { flush } from '../../support/fake-clock';
import { BatchConsumer } from './batch-fakes';

const topic = 'orders';

describe('the position owner of a consumer', () => {
  it('changes a partition only between its batches; other partitions change at once', () => {
    const consumer = new BatchConsumer();
    const positions = new Positions(consumer, 'kafkajs');
    const turn = positions.begin(topic, 0, 10n);
    positions.seek(topic, 0, '12');
    positions.pause(topic, 0);
    positions.pause(topic, 1);
    expect(consumer.log).toEqual([`pause ${topic}[1]`]);
    positions.end(turn);
    expect(consumer.log).toEqual([`pause ${topic}[1]`, `seek ${topic}[0]@12`, `pause ${topic}[0]`]);
  });

  it('drops a change asked for in an earlier assignment, and resumes every partition of a new one', () => {
    const consumer = new BatchConsumer();
    const positions = new Positions(consumer, 'kafkajs');
    const asOf = positions.current;
    const turn = positions.begin(topic, 0, 10n);
    positions.seek(topic, 0, '5', asOf);
    positions.assigned([{ topic, partition: 0 }]);
    positions.end(turn);
    positions.seek(topic, 0, '5', asOf);
    positions.resume(topic, 0, asOf);
    expect(consumer.log).toEqual([`resume ${topic}[0]`]);
  });

  it('on the Confluent client, resumes a new assignment once the client has made it', async () => {
    const consumer = new BatchConsumer();
    const positions = new Positions(consumer, 'confluent');
    positions.assigned([{ topic, partition: 2 }]);
    expect(consumer.log).toEqual([]);
    await flush();
    expect(consumer.log).toEqual([`resume ${topic}[2]`]);
  });

  it('never commits backwards: not below where the assignment began, nor below its last commit', async () => {
    const consumer = new BatchConsumer();
    const positions = new Positions(consumer, 'kafkajs');
    const fresh = () => false;
    const first = positions.begin(topic, 0, 100n);
    expect(await positions.commit(first, 90n, fresh)).toBe('not-forward');
    expect(await positions.commit(first, 150n, fresh)).toBe('committed');
    positions.end(first);
    const second = positions.begin(topic, 0, 120n);
    expect(await positions.commit(second, 140n, fresh)).toBe('not-forward');
    expect(await positions.commit(second, 160n, fresh)).toBe('committed');
    expect(consumer.commits()).toEqual([`commit ${topic}[0]@150`, `commit ${topic}[0]@160`]);
  });

  it('never commits below the group’s commit read for the assignment, even from a batch that began below it', async () => {
    const consumer = new BatchConsumer();
    const positions = new Positions(consumer, 'kafkajs');
    const asOf = positions.assigned([{ topic, partition: 0 }]);
    positions.groupCommit(topic, 0, 10_000n, asOf);
    const stale = positions.begin(topic, 0, 100n);
    expect(await positions.commit(stale, 150n, () => false)).toBe('not-forward');
    // A commit read for an earlier assignment counts for nothing.
    positions.groupCommit(topic, 1, 500n, asOf - 1);
    const other = positions.begin(topic, 1, 100n);
    expect(await positions.commit(other, 150n, () => false)).toBe('committed');
    expect(consumer.commits()).toEqual([`commit ${topic}[1]@150`]);
  });

  it('drops the commit of a batch that began before the partition was assigned again, or that its client calls stale', async () => {
    const consumer = new BatchConsumer();
    const positions = new Positions(consumer, 'kafkajs');
    const old = positions.begin(topic, 0, 100n);
    // The partition moves away and comes back while the batch runs; another member committed 10,000 on.
    positions.revoked();
    positions.assigned([{ topic, partition: 0 }]);
    expect(await positions.commit(old, 150n, () => false)).toBe('outdated');
    positions.end(old);
    const now = positions.begin(topic, 0, 10_100n);
    expect(await positions.commit(now, 10_101n, () => true)).toBe('outdated');
    expect(await positions.commit(now, 10_101n, () => false)).toBe('committed');
    expect(consumer.commits()).toEqual([`commit ${topic}[0]@10101`]);
  });

  it('once stopping, keeps its partitions paused: a new assignment resumes nothing', () => {
    const consumer = new BatchConsumer();
    const positions = new Positions(consumer, 'kafkajs');
    const turn = positions.begin(topic, 0, 0n);
    positions.resume(topic, 0);
    positions.stop();
    positions.pause(topic, 1);
    positions.end(turn);
    positions.assigned([{ topic, partition: 0 }]);
    positions.seek(topic, 1, '3');
    expect(consumer.log).toEqual([`pause ${topic}[1]`]);
  });
});
