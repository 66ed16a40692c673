import { describe, expect, it, vi } from 'vitest';
import type { RetryPlan } from '../../../policy';
import { HEADERS } from '../../../runtime';
import {
  createKafkaRetry,
  KAFKA_HEADERS,
  type KafkaHandler,
  type KafkaRetryEvent,
  type KafkaRetryOptions,
} from '../../../runtime/kafka';
import { createKafkaRetryWithHooks } from '../../../runtime/kafka/kafka-retry';
import type { KafkaTestHooks } from '../../../runtime/kafka/options';
import { FakeClock, flush } from '../../support/fake-clock';
import { billingPlan, httpError, InvalidCurrencyError } from '../plan-fixture';
import { BatchConsumer, BatchProducer } from './batch-fakes';

/**
 * The batched engine (engine: 'batched') on fake clients typed against kafkajs and a fake clock:
 * what it runs, sends, commits, seeks and pauses for each batch, in which order.
 */

const plan = billingPlan();
const kafka = plan.targets.kafka;
if (!kafka) throw new Error('no kafka target');
const source = kafka.sourceTopic;
const level1 = kafka.levels[0]?.destination ?? '';
const level2 = kafka.levels[1]?.destination ?? '';
const dlt = kafka.deadLetterTopic;

const TRACE = {
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
  'x-request-id': 'req-7f3a',
};

async function setUp(
  handler: KafkaHandler,
  options: Partial<KafkaRetryOptions & KafkaTestHooks> = {},
  on: RetryPlan = plan,
) {
  const clock = new FakeClock();
  const consumer = new BatchConsumer();
  const retrying = new BatchConsumer();
  const producer = new BatchProducer(consumer.log);
  const events: KafkaRetryEvent[] = [];
  const retry = createKafkaRetryWithHooks({
    plan: on,
    handler,
    producer,
    clock,
    random: () => 0.5,
    meter: undefined,
    failureBackoff: { initialMs: 500, maxMs: 2_000 },
    onEvent: (event) => events.push(event),
    ...options,
  });
  await retry.runMain(consumer);
  await retry.runRetry(retrying);
  consumer.log.length = 0;
  retrying.log.length = 0;
  return { clock, consumer, retrying, producer, events, retry };
}

/** A promise the test settles. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const header = (headers: unknown, name: string) => {
  const value = (headers as Record<string, unknown>)[name];
  return value === undefined ? undefined : String(value);
};

describe('setting up', () => {
  it('reads batches with eachBatch, resolving and committing itself', async () => {
    const { consumer } = await setUp(async () => {});
    expect(consumer.config?.eachBatch).toBeTypeOf('function');
    expect(consumer.config?.eachMessage).toBeUndefined();
    expect(consumer.config).toMatchObject({ autoCommit: false, eachBatchAutoResolve: false });
  });

  it.each([0, -1, 1.5, Number.NaN])(
    'refuses concurrency %s with a code, instead of starting no handler',
    (concurrency) => {
      expect(() =>
        createKafkaRetry({
          plan,
          concurrency,
          handler: async () => {},
          producer: new BatchProducer([]),
          meter: undefined,
        }),
      ).toThrow(expect.objectContaining({ name: 'KafkaRetryError', code: 'invalid-option' }));
    },
  );
});

describe('the batched engine (fake kafkajs clients)', () => {
  it('commits a batch of healthy records once, sends nothing, and reads on', async () => {
    const { consumer, producer } = await setUp(async () => {});
    const resolved = await consumer.deliver(source, 1, 7, [{}, {}, {}]);
    expect(consumer.log).toEqual([`commit ${source}[1]@10`]);
    expect(resolved).toEqual(['9']);
    expect(producer.sent).toEqual([]);
  });

  it('sends the copies of a batch to each destination in one request, acks -1, then commits once', async () => {
    const { consumer, producer, clock } = await setUp(async (message) => {
      const value = String(message.value);
      if (value === 'transient') throw httpError(503);
      if (value === 'permanent') throw new InvalidCurrencyError('XXX');
    });
    await consumer.deliver(source, 2, 0, [
      { value: 'transient', headers: TRACE },
      { value: 'ok' },
      { value: 'permanent', headers: TRACE },
      { value: 'transient' },
    ]);
    expect([...consumer.log].sort()).toEqual(
      [`commit ${source}[2]@4`, `send ${level1}[2,2] ×2 acked`, `send ${dlt}[2] ×1 acked`].sort(),
    );
    expect(consumer.log.at(-1)).toBe(`commit ${source}[2]@4`);
    expect(producer.sent.map((each) => each.acks)).toEqual([-1, -1]);
    const [retried] = producer.copies.filter((copy) => copy.topic === level1);
    expect(retried?.message).toMatchObject({
      key: Buffer.from('k'),
      value: Buffer.from('transient'),
      partition: 2,
    });
    expect(retried?.message.headers).toMatchObject({
      ...TRACE,
      [HEADERS.attempt]: '2',
      [KAFKA_HEADERS.notBefore]: String(clock.now() + 1_000),
      [KAFKA_HEADERS.originalOffset]: '0',
    });
    const dead = producer.copies.find((copy) => copy.topic === dlt);
    expect(dead?.message.headers).toMatchObject({
      ...TRACE,
      [HEADERS.reason]: 'permanent',
      [HEADERS.errorName]: 'InvalidCurrencyError',
      [HEADERS.source]: source,
      [KAFKA_HEADERS.originalOffset]: '2',
    });
  });

  it('sends the copies with the acks of the plan: 1 when the policy lowers it', async () => {
    const lowered = billingPlan({
      targets: {
        kafka: { topic: source, consumerGroup: 'billing', partitions: 3, replicationFactor: 1, acks: 1 },
      },
    });
    expect(lowered.targets.kafka?.producer.acks).toBe(1);
    const { consumer, producer } = await setUp(
      async () => {
        throw httpError(503);
      },
      {},
      lowered,
    );
    await consumer.deliver(source, 0, 1, [{ value: 'transient' }]);
    expect(producer.sent.map((each) => each.acks)).toEqual([1]);
  });

  it('sends the copies without waiting for each, and commits only once every one is acknowledged', async () => {
    const { consumer, producer } = await setUp(async (message) => {
      if (String(message.value) === 'transient') throw httpError(503);
      throw new InvalidCurrencyError('XXX');
    });
    producer.hold = true;
    const done = consumer.deliver(source, 0, 0, [{ value: 'transient' }, { value: 'permanent' }]);
    await flush();
    // Both requests are out, neither is acknowledged: nothing is committed.
    expect(producer.held.map((each) => each.record.topic).sort()).toEqual([dlt, level1].sort());
    expect(consumer.commits()).toEqual([]);
    producer.held[0]?.ack();
    await flush();
    expect(consumer.commits()).toEqual([]);
    producer.held[1]?.ack();
    await done;
    expect(consumer.commits()).toEqual([`commit ${source}[0]@2`]);
  });

  it('never commits past a record whose handler still runs', async () => {
    const slow = deferred();
    const { consumer } = await setUp(async (message) => {
      if (String(message.value) === 'slow') await slow.promise;
    });
    const done = consumer.deliver(source, 0, 0, [{ value: 'fast' }, { value: 'slow' }, { value: 'fast' }]);
    await flush();
    expect(consumer.commits()).toEqual([]);
    slow.resolve();
    await done;
    expect(consumer.commits()).toEqual([`commit ${source}[0]@3`]);
  });

  it('commits nothing for a batch that began before its partition was assigned again: another member may have committed past it', async () => {
    const slow = deferred();
    const { consumer } = await setUp(async () => {
      await slow.promise;
    });
    const done = consumer.deliver(source, 0, 0, [{ value: 'a' }, { value: 'b' }]);
    await flush();
    // The partition moves away and comes back while the handlers run.
    consumer.join({ [source]: [1] });
    consumer.join({ [source]: [0] });
    slow.resolve();
    await done;
    expect(consumer.commits()).toEqual([]);
    expect(consumer.log.filter((line) => line.startsWith('seek'))).toEqual([]);
    // Read again from the group's commit, in the new assignment, it commits as usual.
    await consumer.deliver(source, 0, 10_000, [{ value: 'c' }]);
    expect(consumer.commits()).toEqual([`commit ${source}[0]@10001`]);
  });

  it('keeps a record whose copy was refused: commits below it, reads it again after a back-off, and skips what was done after it', async () => {
    const calls: string[] = [];
    const { consumer, producer, clock, events } = await setUp(async (message) => {
      calls.push(String(message.value));
      if (String(message.value) === 'transient') throw httpError(503);
    });
    producer.failSends = 1;
    const resolved = await consumer.deliver(source, 0, 0, [
      { value: 'ok-0' },
      { value: 'transient' },
      { value: 'ok-2' },
    ]);
    // Resolved below the kept record, never a seek: the client reads the partition again from
    // it, in this assignment only.
    expect(resolved).toEqual(['0']);
    expect(consumer.log).toEqual([
      `send ${level1}[0] ×1 refused`,
      `commit ${source}[0]@1`,
      `pause ${source}[0]`,
    ]);
    expect(
      events.flatMap((e) => (e.type === 'failed' ? [[e.error.code, e.offset, e.retryInMs]] : [])),
    ).toEqual([['produce-failed', '1', 500]]);
    await clock.advance(499);
    expect(consumer.log).not.toContain(`resume ${source}[0]`);
    await clock.advance(1);
    expect(consumer.log).toContain(`resume ${source}[0]`);

    // Read again from the record kept: it runs again, the record done after it does not.
    await consumer.deliver(source, 0, 1, [{ value: 'transient' }, { value: 'ok-2' }]);
    expect(calls).toEqual(['ok-0', 'transient', 'ok-2', 'transient']);
    expect(producer.copies.map((copy) => String(copy.message.value))).toEqual(['transient']);
    expect(consumer.commits().at(-1)).toBe(`commit ${source}[0]@3`);
  });

  it('doubles the back-off while copies keep being refused, and never commits past them', async () => {
    const { consumer, producer, clock, events } = await setUp(async () => {
      throw new InvalidCurrencyError('XXX');
    });
    producer.failSends = 2;
    await consumer.deliver(source, 0, 5, [{}]);
    await clock.advance(500);
    await consumer.deliver(source, 0, 5, [{}]);
    expect(consumer.commits()).toEqual([]);
    await clock.advance(1_000);
    await consumer.deliver(source, 0, 5, [{}]);
    expect(consumer.commits()).toEqual([`commit ${source}[0]@6`]);
    expect(events.flatMap((e) => (e.type === 'failed' ? [e.retryInMs] : []))).toEqual([500, 1_000]);
    expect(producer.copies.map((copy) => copy.topic)).toEqual([dlt]);
  });

  it('re-delivers after a crash between the copies and the commit: a duplicate copy, nothing lost', async () => {
    const handler: KafkaHandler = async (message) => {
      if (String(message.value) === 'transient') throw httpError(503);
    };
    // The process dies once the copies are acknowledged, before its commit.
    const first = await setUp(handler, {
      afterCopyProduced: () => {
        throw new Error('killed');
      },
    });
    await first.consumer.deliver(source, 0, 0, [{ value: 'ok' }, { value: 'transient' }, { value: 'ok' }]);
    expect(first.producer.copies.map((copy) => String(copy.message.value))).toEqual(['transient']);
    const committed = Number(first.consumer.committed.get(`${source}[0]`) ?? 0);
    expect(committed).toBe(1);
    expect(first.events.find((e) => e.type === 'failed')).toMatchObject({ error: { code: 'step-failed' } });

    // A new process reads from the group's commit: the record is handled and copied again.
    const second = await setUp(handler);
    await second.consumer.deliver(source, 0, committed, [{ value: 'transient' }, { value: 'ok' }]);
    expect(
      second.producer.copies.map((copy) => copy.message.headers?.[KAFKA_HEADERS.originalOffset]),
    ).toEqual(['1']);
    expect(second.consumer.commits()).toEqual([`commit ${source}[0]@3`]);
  });

  it('makes a failed record’s immediate retries in memory: the handler is called again only for them', async () => {
    const calls: string[] = [];
    const set = await setUp(
      async (message) => {
        calls.push(String(message.value));
        // The first call of 'flaky' fails, its immediate retry succeeds.
        if (String(message.value) === 'flaky' && calls.filter((c) => c === 'flaky').length === 1) {
          throw httpError(503);
        }
      },
      { plan: billingPlan({ immediate: { retries: 1, delay: '100ms' } }) },
    );
    const done = set.consumer.deliver(source, 0, 0, [{ value: 'ok' }, { value: 'flaky' }]);
    await flush();
    await set.clock.advance(100);
    await done;
    expect(calls.sort()).toEqual(['flaky', 'flaky', 'ok']);
    expect(set.producer.sent).toEqual([]);
    expect(set.consumer.commits()).toEqual([`commit ${source}[0]@2`]);
    expect(
      set.events.filter((e) => e.type === 'handled').map((e) => e.type === 'handled' && e.outcome),
    ).toEqual(['success', 'success']);
  });

  it('on stop, commits what was carried out and leaves the rest for the next owner', async () => {
    const { consumer, retry } = await setUp(
      async (message) => {
        if (String(message.value) === 'transient') throw httpError(503);
      },
      { plan: billingPlan({ immediate: { retries: 1, delay: '100ms' } }) },
    );
    const done = consumer.deliver(source, 0, 0, [{ value: 'ok' }, { value: 'transient' }, { value: 'ok' }]);
    await flush();
    // The transient record waits in memory for its immediate retry; the runtime stops.
    await retry.stop();
    await done;
    expect(consumer.log).toEqual([`commit ${source}[0]@1`, `pause ${source}[0]`]);
  });

  it('stop waits for a batch under way to send and commit what it carried out', async () => {
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { consumer, retry } = await setUp(async () => blocked);
    const done = consumer.deliver(source, 0, 0, [{}, {}]);
    await flush();
    let stopped = false;
    const stopping = retry.stop().then(() => {
      stopped = true;
    });
    await flush();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(consumer.commits()).toEqual([`commit ${source}[0]@2`]);
    await done;
  });

  const stopShapes: Array<[string, (signal: AbortSignal) => unknown]> = [
    ['the signal’s reason (fetch)', (signal) => signal.reason],
    ['an AbortError (timers/promises, drivers)', () => new DOMException('aborted', 'AbortError')],
  ];
  it.each(stopShapes)(
    'a handler that honours the stop and rejects with %s leaves its record uncommitted: no copy, no dead letter',
    async (_shape, rejection) => {
      const { consumer, producer, retry, events } = await setUp((message, { signal }) =>
        String(message.value) === 'ok'
          ? Promise.resolve()
          : new Promise<void>((_resolve, reject) =>
              signal.addEventListener('abort', () => reject(rejection(signal)), { once: true }),
            ),
      );
      const done = consumer.deliver(source, 0, 0, [{ value: 'ok' }, { value: 'slow' }, { value: 'slow' }]);
      await flush();
      await retry.stop();
      await done;
      expect(producer.sent).toEqual([]);
      expect(consumer.log).toEqual([`commit ${source}[0]@1`, `pause ${source}[0]`]);
      expect(
        events
          .filter((event) => event.type === 'handled')
          .map((event) => event.type === 'handled' && event.outcome),
      ).toEqual(['success', 'requeued', 'requeued']);
    },
  );

  it('handlers that listen on the stop signal, up to the concurrency of both consumers, raise no MaxListenersExceededWarning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const { consumer, retrying, retry } = await setUp((_message, { signal }) => {
        return new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
      });
      const many = Array.from({ length: 16 }, () => ({}));
      const done = [consumer.deliver(source, 0, 0, many), retrying.deliver(level1, 0, 0, many)];
      await flush();
      await retry.stop();
      await Promise.all(done);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('stop resolves at its deadline while a handler ignores the signal; the batch then copies and commits nothing', async () => {
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { consumer, producer, retry } = await setUp(
      async (message) => {
        if (String(message.value) === 'stuck') {
          await blocked;
          throw httpError(503);
        }
      },
      { stopTimeoutMs: 20 },
    );
    let batchReturned = false;
    const done = consumer.deliver(source, 0, 0, [{ value: 'ok' }, { value: 'stuck' }]).then(() => {
      batchReturned = true;
    });
    await flush();
    await retry.stop();
    // The batch returned to the client at the deadline, so its disconnect can leave the group.
    await done;
    expect(batchReturned).toBe(true);
    release();
    await flush();
    await flush();
    expect(producer.sent).toEqual([]);
    expect(consumer.commits()).toEqual([]);
  });

  it.each([
    'autoCommit',
    'groupId',
    'partitionAssigners',
    'rebalance_cb',
    'fromBeginning',
    'autoCommitInterval',
  ])('refuses consumerSettings that set %s, which the runtime depends on', (key) => {
    expect(() =>
      createKafkaRetry({
        plan,
        consumerSettings: { maxWaitTimeInMs: 100, [key]: true },
        handler: async () => {},
        producer: new BatchProducer([]),
        meter: undefined,
      }),
    ).toThrow(expect.objectContaining({ name: 'KafkaRetryError', code: 'invalid-option' }));
  });

  it('takes consumerSettings of timings', () => {
    expect(() =>
      createKafkaRetry({
        plan,
        consumerSettings: { maxWaitTimeInMs: 100, sessionTimeout: 10_000, heartbeatInterval: 500 },
        handler: async () => {},
        producer: new BatchProducer([]),
        meter: undefined,
      }),
    ).not.toThrow();
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses stopTimeoutMs %s with a code',
    (stopTimeoutMs) => {
      expect(() =>
        createKafkaRetry({
          plan,
          stopTimeoutMs,
          handler: async () => {},
          producer: new BatchProducer([]),
          meter: undefined,
        }),
      ).toThrow(expect.objectContaining({ code: 'invalid-option' }));
    },
  );

  it('runs at most `concurrency` handlers at once, across the records and partitions of a consumer', async () => {
    let running = 0;
    let most = 0;
    const gates: Array<() => void> = [];
    const { consumer } = await setUp(
      async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
      },
      { concurrency: 3 },
    );
    const batches = [
      consumer.deliver(source, 0, 0, [{}, {}, {}, {}]),
      consumer.deliver(source, 1, 0, [{}, {}, {}, {}]),
    ];
    for (let released = 0; released < 8; released++) {
      await flush();
      expect(running).toBeLessThanOrEqual(3);
      gates.shift()?.();
    }
    await Promise.all(batches);
    expect(most).toBe(3);
    expect(consumer.commits().sort()).toEqual([`commit ${source}[0]@4`, `commit ${source}[1]@4`]);
  });

  it('runs the records of a batch side by side', async () => {
    let running = 0;
    let most = 0;
    const gates: Array<() => void> = [];
    const { consumer } = await setUp(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => gates.push(resolve));
      running--;
    });
    const done = consumer.deliver(source, 0, 0, [{}, {}, {}, {}, {}]);
    await flush();
    expect(running).toBe(5);
    for (const open of gates.splice(0)) open();
    await done;
    expect(most).toBe(5);
  });

  it('reports a failed commit and goes on: the next batch’s commit covers it', async () => {
    const { consumer, events } = await setUp(async () => {});
    consumer.failCommits = 1;
    await consumer.deliver(source, 0, 3, [{}]);
    await consumer.deliver(source, 0, 4, [{}]);
    expect(consumer.commits()).toEqual([`commit ${source}[0]@5`]);
    expect(events.find((e) => e.type === 'failed')).toMatchObject({ error: { code: 'commit-failed' } });
  });

  it('copies a failing record whose header came without a value (null), and moves on', async () => {
    const { consumer, producer } = await setUp(async (message) => {
      if (String(message.value) === 'transient') throw httpError(503);
    });
    // KafkaJS hands over null for a header sent without a value, whatever its types say.
    const empty = { 'x-empty': null as unknown as string, [HEADERS.attempt]: null as unknown as string };
    await consumer.deliver(source, 0, 0, [{ value: 'transient', headers: empty }, { value: 'ok' }]);
    expect(consumer.commits()).toEqual([`commit ${source}[0]@2`]);
    expect(producer.copies).toHaveLength(1);
    expect(producer.copies[0]?.message.headers).toMatchObject({ 'x-empty': null, [HEADERS.attempt]: '2' });
  });

  it('after a failed commit, a batch read again from the last commit is not run again, and its commit is made', async () => {
    const calls: string[] = [];
    const { consumer, producer } = await setUp(async (message) => {
      calls.push(String(message.value));
      if (String(message.value) === 'transient') throw httpError(503);
    });
    consumer.failCommits = 1;
    const batch = [{ value: 'ok' }, { value: 'transient' }, { value: 'ok-2' }];
    await consumer.deliver(source, 0, 3, batch);
    expect(consumer.commits()).toEqual([]);
    // The group rejoined and this member kept the partition: it reads from the last commit again.
    await consumer.deliver(source, 0, 3, batch);
    expect(calls).toEqual(['ok', 'transient', 'ok-2']);
    expect(producer.sent).toHaveLength(1);
    expect(consumer.commits()).toEqual([`commit ${source}[0]@6`]);
  });

  /** What KafkaJS's idempotent producer throws, for good, once its sequence numbers are out of step with the broker. */
  const outOfOrder = () =>
    Object.assign(new Error('The broker received an out of order sequence number'), {
      name: 'KafkaJSProtocolError',
      type: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
      code: 45,
      retriable: false,
    });

  it('replaces a producer that can never send again, once, and sends the copies again with the new one', async () => {
    const broken = { send: vi.fn(async () => Promise.reject(outOfOrder())) };
    const replaced: unknown[] = [];
    const { consumer, producer, events } = await setUp(
      async () => {
        throw httpError(503);
      },
      {
        producer: broken,
        replaceProducer: async (old, error) => {
          replaced.push(old, error.code);
          return fresh;
        },
      },
    );
    const fresh = producer;
    // Two partitions' batches refused by the same broken producer at once: one replacement.
    await Promise.all([consumer.deliver(source, 0, 0, [{}]), consumer.deliver(source, 1, 0, [{}])]);
    expect(replaced).toEqual([broken, 'producer-broken']);
    expect(consumer.commits()).toEqual([]);
    expect(
      events.filter((e) => e.type === 'failed').map((e) => e.type === 'failed' && e.error.code),
    ).toContain('producer-broken');
    // Read again after the back-off: sent with the new producer, then committed.
    await consumer.deliver(source, 0, 0, [{}]);
    expect(fresh.copies.map((copy) => copy.topic)).toEqual([level1]);
    expect(consumer.commits()).toEqual([`commit ${source}[0]@1`]);
  });

  it('without replaceProducer, a producer that can never send again stops the runtime: `closed` rejects, nothing is committed', async () => {
    const wrapped = () =>
      Object.assign(new Error('[Connection] retries exceeded'), {
        name: 'KafkaJSNumberOfRetriesExceeded',
        cause: outOfOrder(),
      });
    let calls = 0;
    const { consumer, retry } = await setUp(
      async () => {
        calls++;
        throw httpError(503);
      },
      { producer: { send: async () => Promise.reject(wrapped()) } },
    );
    await consumer.deliver(source, 0, 0, [{}, {}]);
    await expect(retry.closed).rejects.toMatchObject({ code: 'producer-broken' });
    expect(consumer.commits()).toEqual([]);
    // Stopped: a batch read after it runs nothing, and the partition is paused.
    await consumer.deliver(source, 0, 0, [{}]);
    expect(calls).toBe(2);
    expect(consumer.commits()).toEqual([]);
    expect(consumer.log).toContain(`pause ${source}[0]`);
  });

  it('a retry copy the broker will never take (too large) ends as a dead letter with the reason; the rest of its request goes through', async () => {
    const { consumer, producer } = await setUp(async () => {
      throw httpError(503);
    });
    producer.maxValueBytes.set(level1, 10);
    await consumer.deliver(source, 0, 0, [
      { value: 'small' },
      { value: 'x'.repeat(50) },
      { value: 'small-too' },
    ]);
    expect(producer.copies.map((copy) => [copy.topic, String(copy.message.value).length])).toEqual([
      [level1, 5],
      [level1, 9],
      [dlt, 50],
    ]);
    const dead = producer.copies[2]?.message.headers;
    expect(header(dead, HEADERS.reason)).toBe('permanent');
    expect(header(dead, HEADERS.because)).toMatch(/^unsendable: .*MESSAGE_TOO_LARGE/);
    // The partition moves on: committed past all three, not read again.
    expect(consumer.commits()).toEqual([`commit ${source}[0]@3`]);
  });

  it('a dead letter the broker will never take is sent without its value, pointing at the record that holds it', async () => {
    const { consumer, producer, events } = await setUp(async () => {
      throw new InvalidCurrencyError('XXX');
    });
    producer.maxValueBytes.set(dlt, 10);
    await consumer.deliver(source, 1, 7, [{ value: 'x'.repeat(50), headers: TRACE }]);
    const [dead] = producer.copies;
    expect(dead?.topic).toBe(dlt);
    expect(dead?.message.value).toBeNull();
    expect(header(dead?.message.headers, KAFKA_HEADERS.valueDropped)).toBe(`${source}[1]@7`);
    expect(header(dead?.message.headers, HEADERS.reason)).toBe('permanent');
    expect(header(dead?.message.headers, 'traceparent')).toBe(TRACE.traceparent);
    expect(consumer.commits()).toEqual([`commit ${source}[1]@8`]);
    expect(events.filter((event) => event.type === 'failed')).toEqual([]);
  });

  it('keeps a batch within the plan’s poll interval: records not started by half of it are read again', async () => {
    let clock: FakeClock | undefined;
    const calls: string[] = [];
    const set = await setUp(
      async (message) => {
        calls.push(String(message.value));
        // Each call takes 100 s; the plan's poll interval is 5 min.
        await clock?.advance(100_000);
      },
      { concurrency: 1 },
    );
    clock = set.clock;
    expect(plan.targets.kafka?.maxPollIntervalMs).toBe(300_000);
    const resolved = await set.consumer.deliver(source, 0, 0, [
      { value: 'a' },
      { value: 'b' },
      { value: 'c' },
    ]);
    expect(calls).toEqual(['a', 'b']);
    expect(resolved).toEqual(['1']);
    expect(set.consumer.commits()).toEqual([`commit ${source}[0]@2`]);
  });

  it('gives the consumers it makes on the Confluent client the plan’s max.poll.interval.ms', async () => {
    const configs: Array<Record<string, unknown>> = [];
    const retry = createKafkaRetry({
      plan,
      client: 'confluent',
      handler: async () => {},
      producer: new BatchProducer([]),
      meter: undefined,
    });
    await retry.run({
      consumer: (config) => {
        configs.push(config as Record<string, unknown>);
        return new BatchConsumer();
      },
    });
    expect(configs.map((config) => config['max.poll.interval.ms'])).toEqual([300_000, 300_000]);
    await retry.stop();
  });

  it('heartbeats while one long handler runs, outside its slot, so the member is not evicted', async () => {
    let release: () => void = () => {};
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { consumer, clock } = await setUp(() => blocked, { concurrency: 1 });
    const done = consumer.deliver(source, 0, 0, [{ value: 'slow' }]);
    await flush();
    for (let step = 0; step < 4; step++) await clock.advance(500);
    expect(consumer.heartbeats).toBe(4);
    release();
    await done;
    // None after the batch ended.
    await clock.advance(2_000);
    expect(consumer.heartbeats).toBe(4);
  });

  it('starts no more records once a heartbeat says the group rebalances, and reads them again from there', async () => {
    const calls: string[] = [];
    let clock: FakeClock | undefined;
    const set = await setUp(
      async (message) => {
        calls.push(String(message.value));
        await clock?.advance(600);
      },
      { concurrency: 1 },
    );
    clock = set.clock;
    set.consumer.failHeartbeats = 1;
    const resolved = await set.consumer.deliver(source, 0, 0, [
      { value: 'a' },
      { value: 'b' },
      { value: 'c' },
    ]);
    expect(calls).toEqual(['a']);
    // No seek, which the rebalance could carry into a later assignment: b and c are left unresolved.
    expect(resolved).toEqual(['0']);
    expect(set.consumer.log).toEqual([`commit ${source}[0]@1`]);
  });
});

describe('the batched engine on the retry topics', () => {
  const retryHeaders = (attempt: number, notBefore: number) => ({
    [HEADERS.attempt]: String(attempt),
    [KAFKA_HEADERS.notBefore]: String(notBefore),
    ...TRACE,
  });

  it('runs the due records, pauses the partition at the first one not due, and resumes it when due', async () => {
    const calls: string[] = [];
    const { retrying, clock, events } = await setUp(
      async (message) => void calls.push(String(message.value)),
    );
    const now = clock.now();
    const timestamp = String(now - 500);
    const resolved = await retrying.deliver(level1, 0, 0, [
      { value: 'due', headers: retryHeaders(2, now - 1), timestamp },
      { value: 'later', headers: retryHeaders(2, now + 400), timestamp },
      { value: 'due-too', headers: retryHeaders(2, now - 1), timestamp },
    ]);
    expect(calls).toEqual(['due']);
    expect(resolved).toEqual(['0']);
    expect(retrying.log).toEqual([`commit ${level1}[0]@1`, `pause ${level1}[0]`]);
    expect(events.find((e) => e.type === 'waiting')).toMatchObject({ offset: '1', dueAt: now + 400 });
    await clock.advance(399);
    expect(retrying.log).not.toContain(`resume ${level1}[0]`);
    await clock.advance(1);
    expect(retrying.log).toContain(`resume ${level1}[0]`);
    await retrying.deliver(level1, 0, 1, [
      { value: 'later', headers: retryHeaders(2, now + 400), timestamp },
      { value: 'due-too', headers: retryHeaders(2, now - 1), timestamp },
    ]);
    expect(calls).toEqual(['due', 'later', 'due-too']);
    expect(retrying.commits().at(-1)).toBe(`commit ${level1}[0]@3`);
  });

  it('commits nothing and runs nothing when the first record is not due', async () => {
    const calls: string[] = [];
    const { retrying, clock } = await setUp(async (message) => void calls.push(String(message.value)));
    const now = clock.now();
    const resolved = await retrying.deliver(level1, 2, 4, [
      { headers: retryHeaders(2, now + 1_000), timestamp: String(now) },
    ]);
    expect(calls).toEqual([]);
    expect(resolved).toEqual([]);
    expect(retrying.log).toEqual([`pause ${level1}[2]`]);
  });

  it('copies on to the next level and to the dead letter in one pass, with the trace headers on each hop', async () => {
    const { retrying, producer, clock } = await setUp(async (message) => {
      if (String(message.value) === 'transient') throw httpError(503);
      throw new InvalidCurrencyError('unsupported currency XXX');
    });
    const now = clock.now();
    const origin = {
      [KAFKA_HEADERS.originalTopic]: source,
      [KAFKA_HEADERS.originalPartition]: '1',
      [KAFKA_HEADERS.originalOffset]: '40',
    };
    await retrying.deliver(level1, 1, 10, [
      {
        value: 'transient',
        headers: { ...retryHeaders(2, now - 1), ...origin },
        timestamp: String(now - 1_000),
      },
      {
        value: 'permanent',
        headers: { ...retryHeaders(2, now - 1), ...origin },
        timestamp: String(now - 1_000),
      },
    ]);
    expect(retrying.commits()).toEqual([`commit ${level1}[1]@12`]);
    const next = producer.copies.find((copy) => copy.topic === level2);
    const dead = producer.copies.find((copy) => copy.topic === dlt);
    expect(next?.message.headers).toMatchObject({
      ...TRACE,
      [HEADERS.attempt]: '3',
      [KAFKA_HEADERS.notBefore]: String(now + 2_000),
      [KAFKA_HEADERS.originalOffset]: '40',
    });
    expect(dead?.message.headers).toMatchObject({
      ...TRACE,
      [HEADERS.reason]: 'permanent',
      [HEADERS.errorName]: 'InvalidCurrencyError',
      [HEADERS.errorMessage]: 'unsupported currency XXX',
      [HEADERS.attempt]: '2',
      [HEADERS.source]: level1,
      [KAFKA_HEADERS.originalOffset]: '40',
    });
    expect(header(dead?.message.headers, HEADERS.because)).toBeTruthy();
    // Ours replaced, never carried twice.
    for (const copy of producer.copies)
      expect(Array.isArray(copy.message.headers?.[HEADERS.attempt])).toBe(false);
  });

  it('dead-letters the last attempt as exhausted, with its reason headers', async () => {
    const { retrying, producer, clock } = await setUp(async () => {
      throw httpError(503);
    });
    const now = clock.now();
    const level3 = kafka.levels[2]?.destination ?? '';
    await retrying.deliver(level3, 0, 0, [
      { headers: retryHeaders(4, now - 1), timestamp: String(now - 4_000) },
    ]);
    expect(producer.copies.map((copy) => copy.topic)).toEqual([dlt]);
    expect(producer.copies[0]?.message.headers).toMatchObject({
      ...TRACE,
      [HEADERS.reason]: 'exhausted',
      [HEADERS.attempt]: '4',
      [HEADERS.source]: level3,
    });
    expect(retrying.commits()).toEqual([`commit ${level3}[0]@1`]);
  });

  it('holds a topic that is not in the plan, uncommitted', async () => {
    const { retrying, events } = await setUp(async () => {});
    const resolved = await retrying.deliver('elsewhere', 0, 3, [{}]);
    expect(resolved).toEqual([]);
    expect(retrying.log).toEqual(['pause elsewhere[0]']);
    expect(events.find((e) => e.type === 'failed')).toMatchObject({ error: { code: 'unknown-topic' } });
  });
});
