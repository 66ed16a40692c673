import type { Admin, ConsumerConfig } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../../policy';
import {
  createKafkaRetry,
  KAFKA_HEADERS,
  type KafkaHandler,
  type KafkaLike,
  type KafkaRetryEvent,
} from '../../../runtime/kafka';
import { FakeClock, flush } from '../../support/fake-clock';
import { billingPlan, httpError } from '../plan-fixture';
import { BatchConsumer, BatchProducer, type FakeRecord } from './batch-fakes';

/**
 * Per-key order on the batched engine (run(kafka)): one consumer reads the whole chain, on fake
 * clients typed against kafkajs and a fake clock.
 */

const plan: RetryPlan = billingPlan({
  ordering: 'per-key',
  targets: {
    kafka: { topic: 'bookstore.orders', consumerGroup: 'billing', partitions: 3, replicationFactor: 1 },
  },
});
const kafka = plan.targets.kafka;
if (!kafka) throw new Error('no kafka target');
const source = kafka.sourceTopic;
const retryTopics = kafka.levels.map((level) => level.destination);
const [level1 = '', level2 = ''] = retryTopics;
const dlt = kafka.deadLetterTopic;

/** A KafkaJS consumer that also tells of its joins, as KafkaJS's GROUP_JOIN does. */
class JoiningConsumer extends BatchConsumer {
  /** Joins with `memberAssignment`, and forgets what was logged up to the chains being read. */
  async joined(memberAssignment: Record<string, number[]>) {
    this.join(memberAssignment);
    await flush();
    this.log.length = 0;
  }

  /** KafkaJS's CRASH, and whether it restarts the consumer itself. */
  crash(restart: boolean) {
    this.emit(this.events.CRASH, { error: new Error('KafkaJSNumberOfRetriesExceeded (simulated)'), restart });
  }
}

/** The retry topics' committed offsets and log ends, as the test sets them. */
class ChainAdmin implements Pick<Admin, 'fetchOffsets' | 'fetchTopicOffsets'> {
  /** `topic[partition]` → [committed, high]; unset: nothing committed, empty log. */
  readonly logs = new Map<string, [committed: string, high: string]>();
  /** `topic[partition]` → the retry group's commit (runRetry's group, before run(kafka)). */
  readonly former = new Map<string, string>();
  async fetchOffsets({ groupId, topics }: { groupId: string; topics?: string[] }) {
    const commitOf = (where: string) =>
      groupId === kafka?.retryConsumerGroup ? this.former.get(where) : this.logs.get(where)?.[0];
    return (topics ?? []).map((topic) => ({
      topic,
      partitions: [0, 1, 2].map((partition) => ({
        partition,
        offset: commitOf(`${topic}[${partition}]`) ?? '-1',
        metadata: null,
      })),
    }));
  }
  async fetchTopicOffsets(topic: string) {
    return [0, 1, 2].map((partition) => {
      const high = this.logs.get(`${topic}[${partition}]`)?.[1] ?? '0';
      return { partition, offset: high, high, low: '0' };
    });
  }
}

const wholeChain = (partition: number) =>
  Object.fromEntries([source, ...retryTopics].map((topic) => [topic, [partition]]));

async function setUp(handler: KafkaHandler, admin = new ChainAdmin()) {
  const clock = new FakeClock();
  const consumer = new JoiningConsumer();
  const producer = new BatchProducer(consumer.log);
  const events: KafkaRetryEvent[] = [];
  const configs: ConsumerConfig[] = [];
  const client: KafkaLike = {
    consumer: (config) => {
      configs.push(config as ConsumerConfig);
      return consumer;
    },
  };
  const retry = createKafkaRetry({
    plan,
    handler,
    producer,
    admin: admin as never,
    clock,
    random: () => 0.5,
    meter: undefined,
    onEvent: (event) => events.push(event),
  });
  await retry.run(client);
  return { clock, consumer, producer, events, configs, retry, admin };
}

/** Records the handler was called with, in order; fails those named in `failing` (503) each time. */
function recorder(failing: string[] = []) {
  const calls: string[] = [];
  const handler: KafkaHandler = async (message) => {
    const value = String(message.value);
    calls.push(value);
    if (failing.includes(value)) throw httpError(503);
  };
  return { calls, handler };
}

const keyed = (key: string, value: string, extra: Partial<FakeRecord> = {}): FakeRecord => ({
  key,
  value,
  ...extra,
});

describe('run(kafka): one consumer for the whole chain', () => {
  it('makes one KafkaJS consumer in the main group with range assignment, reading the source and every retry topic', async () => {
    const { consumer, configs } = await setUp(async () => {});
    expect(configs).toHaveLength(1);
    expect(configs[0]).toMatchObject({ groupId: kafka.consumerGroup, maxWaitTimeInMs: 500 });
    expect(configs[0]?.partitionAssigners?.map((assigner) => assigner({} as never).name)).toEqual(['range']);
    expect(consumer.log).toEqual([`subscribe ${source}`, `subscribe ${retryTopics.join(',')}`]);
    expect(consumer.config).toMatchObject({ autoCommit: false, eachBatchAutoResolve: false });
  });

  it('fails loudly when the consumer crashed for good: a failed event, and closed rejects', async () => {
    const { consumer, retry, events } = await setUp(async () => {});
    let settled: unknown = 'pending';
    retry.closed.then(
      () => {
        settled = 'resolved';
      },
      (error: unknown) => {
        settled = error;
      },
    );
    consumer.crash(true);
    await flush();
    // Restarted by KafkaJS: told, not fatal.
    expect(settled).toBe('pending');
    consumer.crash(false);
    await flush();
    expect(settled).toMatchObject({ name: 'KafkaRetryError', code: 'consumer-crashed' });
    expect(events.map((event) => event.type === 'failed' && event.error.code)).toEqual([
      'consumer-crashed',
      'consumer-crashed',
    ]);
  });

  it('closed resolves once stop is done, and stop disconnects the consumer it made', async () => {
    const { consumer, retry } = await setUp(async () => {});
    let disconnected = false;
    consumer.disconnect = async () => {
      disconnected = true;
    };
    await retry.stop();
    await expect(retry.closed).resolves.toBeUndefined();
    expect(disconnected).toBe(true);
  });

  it('runs a plan without key order with a main and a retry consumer it makes, in their groups', async () => {
    const unordered = billingPlan();
    const groups: string[] = [];
    const made: BatchConsumer[] = [];
    const client: KafkaLike = {
      consumer: (config) => {
        groups.push((config as ConsumerConfig).groupId);
        const consumer = new BatchConsumer();
        made.push(consumer);
        return consumer;
      },
    };
    const retry = createKafkaRetry({
      plan: unordered,
      handler: async () => {},
      producer: new BatchProducer([]),
      meter: undefined,
    });
    await retry.run(client);
    const target = unordered.targets.kafka;
    expect(groups).toEqual([target?.consumerGroup, target?.retryConsumerGroup]);
    expect(made.map((consumer) => consumer.log)).toEqual([
      [`subscribe ${target?.sourceTopic}`],
      [`subscribe ${target?.levels.map((level) => level.destination).join(',')}`],
    ]);
    expect(made.every((consumer) => consumer.config?.eachBatch !== undefined)).toBe(true);
  });
});

describe('per-key order on the batched engine (fake kafkajs clients)', () => {
  it('parks a key’s later records behind its first one’s retry copy, in one batch; other keys run', async () => {
    const { calls, handler } = recorder(['placed']);
    const { consumer, producer, events, clock } = await setUp(handler);
    await consumer.joined(wholeChain(0));
    await consumer.deliver(source, 0, 0, [
      keyed('order-42', 'placed'),
      keyed('order-42', 'cancelled'),
      keyed('order-7', 'other'),
    ]);
    expect(calls.sort()).toEqual(['other', 'placed']);
    // The head's copy first, then the follower behind it, then one commit past all three.
    expect(consumer.log).toEqual([
      `send ${level1}[0] ×1 acked`,
      `send ${level1}[0] ×1 acked`,
      `commit ${source}[0]@3`,
    ]);
    const [head, follower] = producer.copies;
    expect(String(head?.message.value)).toBe('placed');
    expect(String(follower?.message.value)).toBe('cancelled');
    expect(follower?.message.headers).toMatchObject({
      [KAFKA_HEADERS.parked]: 'true',
      [KAFKA_HEADERS.originalOffset]: '1',
      [KAFKA_HEADERS.notBefore]: String(clock.now() + 1_000),
    });
    // Each copy carries when it was made: the index tells a record's newest copy by it.
    expect(head?.message.headers).toMatchObject({ [KAFKA_HEADERS.copiedAt]: String(clock.now()) });
    expect(events.filter((event) => event.type === 'parked')).toEqual([
      expect.objectContaining({ offset: '1', destination: level1, behind: 0 }),
    ]);
  });

  it('parks a later batch’s record behind the key’s record in the chain, then runs them in order when due', async () => {
    const { calls, handler } = recorder(['placed']);
    const { consumer, producer, clock } = await setUp(handler);
    await consumer.joined(wholeChain(0));
    await consumer.deliver(source, 0, 0, [keyed('order-42', 'placed')]);
    await consumer.deliver(source, 0, 1, [keyed('order-42', 'paid'), keyed('order-9', 'other')]);
    expect(calls).toEqual(['placed', 'other']);
    expect(producer.copies.map((copy) => [copy.topic, String(copy.message.value)])).toEqual([
      [level1, 'placed'],
      [level1, 'paid'],
    ]);
    // Due: both copies come back from level 1 in one batch; 'placed' fails again, 'paid' follows it to level 2.
    clock.advance(1_000);
    await flush();
    const copies = producer.copies.map((copy) => ({
      key: 'order-42',
      value: String(copy.message.value),
      timestamp: copy.message.timestamp,
      headers: copy.message.headers as never,
    }));
    consumer.log.length = 0;
    await consumer.deliver(level1, 0, 0, copies);
    expect(calls).toEqual(['placed', 'other', 'placed']);
    expect(producer.copies.slice(2).map((copy) => [copy.topic, String(copy.message.value)])).toEqual([
      [level2, 'placed'],
      [level2, 'paid'],
    ]);
    expect(consumer.commits()).toEqual([`commit ${level1}[0]@2`]);
  });

  it.each([
    ['LogAppendTime, on a broker whose clock is behind this one', -5_000],
    ['LogAppendTime, on a broker whose clock is ahead', 5_000],
  ])('knows its own copy by its header whatever the broker stamps on it (%s)', async (_how, skewMs) => {
    const { calls, handler } = recorder(['placed']);
    const { consumer, producer, clock } = await setUp(handler);
    await consumer.joined(wholeChain(0));
    await consumer.deliver(source, 0, 0, [keyed('order-42', 'placed')]);
    clock.advance(1_000);
    await flush();
    // The copy comes back stamped by the broker, not with the time it was made.
    const [copy] = producer.copies;
    consumer.log.length = 0;
    await consumer.deliver(level1, 0, 0, [
      keyed('order-42', 'placed', {
        timestamp: String(clock.now() - 1_000 + skewMs),
        headers: copy?.message.headers as never,
      }),
    ]);
    // Run again, and copied on to level 2: never taken for an older copy and committed unrun.
    expect(calls).toEqual(['placed', 'placed']);
    expect(producer.copies.map((each) => each.topic)).toEqual([level1, level2]);
  });

  it('runs the follower right after its key’s head succeeds, in the same batch', async () => {
    const { calls, handler } = recorder();
    const { consumer, producer, clock } = await setUp(handler);
    await consumer.joined(wholeChain(0));
    const notBefore = String(clock.now());
    const head = {
      [KAFKA_HEADERS.originalTopic]: source,
      [KAFKA_HEADERS.originalPartition]: '0',
      [KAFKA_HEADERS.notBefore]: notBefore,
    };
    await consumer.deliver(level1, 0, 0, [
      keyed('order-42', 'placed', {
        timestamp: '5',
        headers: { ...head, [KAFKA_HEADERS.originalOffset]: '3' },
      }),
      keyed('order-42', 'paid', {
        timestamp: '6',
        headers: { ...head, [KAFKA_HEADERS.originalOffset]: '8', [KAFKA_HEADERS.parked]: 'true' },
      }),
    ]);
    expect(calls).toEqual(['placed', 'paid']);
    expect(producer.sent).toEqual([]);
    expect(consumer.commits()).toEqual([`commit ${level1}[0]@2`]);
  });

  it('reads the chain’s retry partitions to their end before running anything, then parks behind what it found', async () => {
    const admin = new ChainAdmin();
    admin.logs.set(`${level2}[0]`, ['4', '5']);
    const { calls, handler } = recorder();
    const { consumer, producer, clock } = await setUp(handler, admin);
    await consumer.joined(wholeChain(0));
    // The source batch waits: the chain is not read yet; level 2 is read from its commit.
    await consumer.deliver(source, 0, 20, [keyed('order-42', 'cancelled')]);
    expect(calls).toEqual([]);
    expect(consumer.log).toEqual([
      `seek ${level2}[0]@4`,
      `resume ${level2}[0]`,
      `seek ${source}[0]@20`,
      `pause ${source}[0]`,
    ]);
    // Level 2 holds an older record of the key (source offset 3), due in a minute.
    consumer.log.length = 0;
    const due = clock.now() + 60_000;
    await consumer.deliver(level2, 0, 4, [
      keyed('order-42', 'placed', {
        timestamp: '5',
        headers: {
          [KAFKA_HEADERS.originalTopic]: source,
          [KAFKA_HEADERS.originalPartition]: '0',
          [KAFKA_HEADERS.originalOffset]: '3',
          [KAFKA_HEADERS.notBefore]: String(due),
        },
      }),
    ]);
    expect(calls).toEqual([]);
    // Changes to level 2 wait for its batch to end (positions.ts): back to 4, held and then
    // resumed in that batch, so it ends resumed.
    expect(consumer.log).toEqual([`resume ${source}[0]`, `seek ${level2}[0]@4`, `resume ${level2}[0]`]);
    consumer.log.length = 0;
    await consumer.deliver(source, 0, 20, [keyed('order-42', 'cancelled')]);
    expect(calls).toEqual([]);
    expect(
      producer.copies.map((copy) => [copy.topic, copy.message.headers?.[KAFKA_HEADERS.notBefore]]),
    ).toEqual([[level2, String(due)]]);
    expect(consumer.commits()).toEqual([`commit ${source}[0]@21`]);
  });

  it('leaves behind a source record whose copy the chain already holds (copied before a crash, not committed)', async () => {
    const admin = new ChainAdmin();
    admin.logs.set(`${level1}[0]`, ['0', '1']);
    const { calls, handler } = recorder();
    const { consumer, clock } = await setUp(handler, admin);
    await consumer.joined(wholeChain(0));
    const copy = {
      timestamp: '2000',
      headers: {
        [KAFKA_HEADERS.originalTopic]: source,
        [KAFKA_HEADERS.originalPartition]: '0',
        [KAFKA_HEADERS.originalOffset]: '6',
        [KAFKA_HEADERS.notBefore]: String(clock.now() + 60_000),
      },
    };
    await consumer.deliver(level1, 0, 0, [keyed('order-42', 'placed', copy)]);
    consumer.log.length = 0;
    await consumer.deliver(source, 0, 6, [keyed('order-42', 'placed', { timestamp: '1000' })]);
    expect(calls).toEqual([]);
    expect(consumer.log).toEqual([`commit ${source}[0]@7`]);
  });

  it('runs a record once when a crash left an older copy of it unread: its newest copy may run first', async () => {
    // The last owner copied the record from level 1 to level 2 and died before its commit on
    // level 1: both copies are above the commits. Level 2 is read first, the record succeeds,
    // and its level 1 copy, read after, must not run (nor its source record, read again).
    const admin = new ChainAdmin();
    admin.logs.set(`${level1}[0]`, ['0', '1']);
    admin.logs.set(`${level2}[0]`, ['0', '1']);
    const { calls, handler } = recorder();
    const { consumer, clock } = await setUp(handler, admin);
    await consumer.joined(wholeChain(0));
    const copyAt = (timestamp: string) => ({
      timestamp,
      headers: {
        [KAFKA_HEADERS.originalTopic]: source,
        [KAFKA_HEADERS.originalPartition]: '0',
        [KAFKA_HEADERS.originalOffset]: '6',
        [KAFKA_HEADERS.notBefore]: String(clock.now()),
      },
    });
    const older = keyed('order-42', 'placed', copyAt('2000'));
    const newest = keyed('order-42', 'placed', copyAt('3000'));
    // The scan reads both partitions to their end.
    await consumer.deliver(level1, 0, 0, [older]);
    await consumer.deliver(level2, 0, 0, [newest]);
    expect(calls).toEqual([]);
    consumer.log.length = 0;
    await consumer.deliver(level2, 0, 0, [newest]);
    expect(calls).toEqual(['placed']);
    await consumer.deliver(level1, 0, 0, [older]);
    await consumer.deliver(source, 0, 6, [keyed('order-42', 'placed', { timestamp: '1000' })]);
    expect(calls).toEqual(['placed']);
    expect(consumer.commits()).toEqual([
      `commit ${level2}[0]@1`,
      `commit ${level1}[0]@1`,
      `commit ${source}[0]@7`,
    ]);
  });

  it('never runs a batch read below the group’s commit (a position the client kept from an earlier assignment): back to the commit', async () => {
    const admin = new ChainAdmin();
    // Another member committed the source partition up to 50 while it was away from this one.
    admin.logs.set(`${source}[0]`, ['50', '60']);
    const { calls, handler } = recorder();
    const { consumer } = await setUp(handler, admin);
    await consumer.joined(wholeChain(0));
    await consumer.deliver(source, 0, 20, [keyed('order-1', 'old-20'), keyed('order-2', 'old-21')]);
    expect(calls).toEqual([]);
    expect(consumer.log).toContain(`seek ${source}[0]@50`);
    expect(consumer.commits()).toEqual([]);
    await consumer.deliver(source, 0, 50, [keyed('order-3', 'new-50')]);
    expect(calls).toEqual(['new-50']);
    expect(consumer.commits()).toEqual([`commit ${source}[0]@51`]);
  });

  it('starts a retry partition this group never committed on where the retry group left off', async () => {
    const admin = new ChainAdmin();
    admin.logs.set(`${level1}[0]`, ['-1', '9']);
    admin.former.set(`${level1}[0]`, '7');
    const { calls, handler } = recorder();
    const { consumer } = await setUp(handler, admin);
    consumer.join(wholeChain(0));
    await flush();
    expect(consumer.log).toContain(`seek ${level1}[0]@7`);
    consumer.log.length = 0;
    // A batch read from the start before that seek took effect: nothing below 7 is in the chain.
    const copyOf = (offset: number) =>
      keyed('order-42', `copy-${offset}`, {
        timestamp: '5',
        headers: {
          [KAFKA_HEADERS.originalTopic]: source,
          [KAFKA_HEADERS.originalPartition]: '0',
          [KAFKA_HEADERS.originalOffset]: String(offset),
          [KAFKA_HEADERS.notBefore]: '1',
        },
      });
    await consumer.deliver(level1, 0, 0, [copyOf(0), copyOf(1)]);
    await consumer.deliver(level1, 0, 7, [copyOf(7), copyOf(8)]);
    expect(calls).toEqual([]);
    // Read to its end: back to 7, and the chain is ready; the changes wait for the batch to end.
    expect(consumer.log.slice(-2)).toEqual([`seek ${level1}[0]@7`, `resume ${level1}[0]`]);
    // The copies from 7 on run, in order.
    consumer.log.length = 0;
    await consumer.deliver(level1, 0, 7, [copyOf(7), copyOf(8)]);
    expect(calls).toEqual(['copy-7', 'copy-8']);
  });

  it('reads the chain again after a refused copy, which may have landed: the record is then left behind, not run again', async () => {
    const admin = new ChainAdmin();
    const { calls, handler } = recorder(['placed']);
    const { consumer, producer, clock } = await setUp(handler, admin);
    await consumer.joined(wholeChain(0));
    producer.failSends = 1;
    await consumer.deliver(source, 0, 0, [keyed('order-42', 'placed', { timestamp: '1000' })]);
    expect(calls).toEqual(['placed']);
    expect(consumer.commits()).toEqual([]);
    // The copy landed all the same (a lost reply): level 1 now holds it, at offset 0.
    admin.logs.set(`${level1}[0]`, ['-1', '1']);
    const landed = {
      timestamp: String(clock.now()),
      headers: {
        [KAFKA_HEADERS.originalTopic]: source,
        [KAFKA_HEADERS.originalPartition]: '0',
        [KAFKA_HEADERS.originalOffset]: '0',
        [KAFKA_HEADERS.notBefore]: String(clock.now() + 1_000),
      },
    };
    consumer.log.length = 0;
    // Read again after the back-off: the chain is read first, from level 1's start.
    await consumer.deliver(source, 0, 0, [keyed('order-42', 'placed', { timestamp: '1000' })]);
    expect(consumer.log).toEqual(expect.arrayContaining([`seek ${level1}[0]@0`, `resume ${level1}[0]`]));
    expect(calls).toEqual(['placed']);
    await consumer.deliver(level1, 0, 0, [keyed('order-42', 'placed', landed)]);
    consumer.log.length = 0;
    await consumer.deliver(source, 0, 0, [keyed('order-42', 'placed', { timestamp: '1000' })]);
    // Its copy is in the chain: done, not run again, and no second copy.
    expect(calls).toEqual(['placed']);
    expect(consumer.commits()).toEqual([`commit ${source}[0]@1`]);
    expect(producer.sent).toEqual([]);
  });

  it('keeps a chain it holds only in part paused, and says so', async () => {
    const { calls, handler } = recorder();
    const { consumer, events } = await setUp(handler);
    await consumer.joined({ [source]: [0], [level1]: [0] });
    await consumer.deliver(source, 0, 0, [keyed('order-42', 'placed')]);
    expect(calls).toEqual([]);
    expect(consumer.log).toEqual([`seek ${source}[0]@0`, `pause ${source}[0]`]);
    expect(events.map((event) => event.type === 'failed' && event.error.code)).toEqual(['chain-split']);
  });

  it('a follower of a dead-lettered record waits for the dead letter, then runs on the next read', async () => {
    const calls: string[] = [];
    const { consumer } = await setUp(async (message) => {
      calls.push(String(message.value));
      if (String(message.value) === 'poison') throw new Error('permanent');
    });
    await consumer.joined(wholeChain(0));
    const resolved = await consumer.deliver(source, 0, 0, [
      keyed('order-42', 'poison'),
      keyed('order-42', 'after'),
    ]);
    expect(calls).toEqual(['poison']);
    // Resolved up to the follower, which the client reads again: no seek.
    expect(resolved).toEqual(['0']);
    expect(consumer.log).toEqual([`send ${dlt}[0] ×1 acked`, `commit ${source}[0]@1`]);
    await consumer.deliver(source, 0, 1, [keyed('order-42', 'after')]);
    expect(calls).toEqual(['poison', 'after']);
  });
});
