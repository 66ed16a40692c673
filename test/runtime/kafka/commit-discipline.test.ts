import { describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import {
  createKafkaRetry,
  KAFKA_HEADERS,
  type KafkaHandler,
  type KafkaRetryEvent,
} from '../../../runtime/kafka';
import { FakeClock } from '../../support/fake-clock';
import { billingPlan, httpError } from '../plan-fixture';
import { FakeConsumer, FakeProducer } from './fakes';

const plan = billingPlan({ immediate: { retries: 1, delay: '100ms' } });
const kafka = plan.targets.kafka;
if (!kafka) throw new Error('no kafka target');
const source = kafka.sourceTopic;
const level1 = kafka.levels[0]?.destination ?? '';

async function setUp(handler: KafkaHandler, extra: { afterCopyProduced?: () => void } = {}) {
  const clock = new FakeClock();
  const consumer = new FakeConsumer();
  const producer = new FakeProducer(consumer.log);
  const events: KafkaRetryEvent[] = [];
  const retry = createKafkaRetry({
    plan,
    // The per-record engine's discipline (the batched one's is in batch-engine.test.ts).
    engine: 'per-record',
    handler,
    producer,
    clock,
    random: () => 0.5,
    meter: undefined,
    failureBackoff: { initialMs: 500, maxMs: 2_000 },
    onEvent: (event) => events.push(event),
    ...extra,
  });
  await retry.runMain(consumer);
  const retrying = new FakeConsumer();
  await retry.runRetry(retrying);
  consumer.log.length = 0;
  retrying.log.length = 0;
  return { clock, consumer, retrying, producer, events, retry };
}

describe('the commit discipline (fake clients)', () => {
  it('commits past a record the handler took, and produces nothing', async () => {
    const { consumer } = await setUp(async () => {});
    await consumer.deliver(source, 1, { offset: '7' });
    expect(consumer.log).toEqual([`commit ${source}[1]@8`]);
  });

  it('produces the retry copy (acks -1, same partition, same key and value) before it commits', async () => {
    const { consumer, producer, clock } = await setUp(async () => {
      throw httpError(503);
    });
    const run = consumer.deliver(source, 2, { offset: '7', headers: { trace: Buffer.from('t') } });
    await clock.advance(100); // the one immediate retry
    await run;
    expect(consumer.log).toEqual([`send ${level1}[2]`, `commit ${source}[2]@8`]);
    const [copy] = producer.sent;
    expect(copy?.acks).toBe(-1);
    expect(copy?.message.key?.toString()).toBe('k');
    expect(copy?.message.value?.toString()).toBe('v');
    expect(copy?.message.headers).toMatchObject({
      trace: Buffer.from('t'),
      [HEADERS.attempt]: '2',
      [KAFKA_HEADERS.notBefore]: String(clock.now() + 1_000),
      [KAFKA_HEADERS.originalOffset]: '7',
    });
  });

  it('produces with the acks of the plan: 1 when the policy lowers it', async () => {
    const lowered = billingPlan({
      targets: {
        kafka: { topic: source, consumerGroup: 'billing', partitions: 3, replicationFactor: 1, acks: 1 },
      },
    });
    expect(lowered.targets.kafka?.producer.acks).toBe(1);
    const consumer = new FakeConsumer();
    const producer = new FakeProducer(consumer.log);
    const retry = createKafkaRetry({
      plan: lowered,
      engine: 'per-record',
      handler: async () => {
        throw httpError(503);
      },
      producer,
      clock: new FakeClock(),
      random: () => 0.5,
      meter: undefined,
    });
    await retry.runMain(consumer);
    await consumer.deliver(source, 0, { offset: '1' });
    expect(producer.sent.map((each) => each.acks)).toEqual([1]);
  });

  it('never commits when the produce fails: it seeks back, pauses, and resumes after a doubling back-off', async () => {
    const { consumer, producer, clock, events } = await setUp(async () => {
      throw new Error('unknown failure: permanent by default');
    });
    producer.failSends = 2;
    await consumer.deliver(source, 0, { offset: '3' });
    expect(consumer.log).toEqual([`seek ${source}[0]@3`, `pause ${source}[0]`]);
    await clock.advance(499);
    expect(consumer.log).not.toContain(`resume ${source}[0]`);
    await clock.advance(1);
    expect(consumer.log).toContain(`resume ${source}[0]`);
    await consumer.deliver(source, 0, { offset: '3' });
    await consumer.deliver(source, 0, { offset: '3' });
    expect(consumer.log.filter((line) => line.startsWith('commit'))).toEqual([`commit ${source}[0]@4`]);
    expect(events.flatMap((e) => (e.type === 'failed' ? [[e.error.code, e.retryInMs]] : []))).toEqual([
      ['produce-failed', 500],
      ['produce-failed', 1_000],
    ]);
    expect(producer.sent.map((s) => s.topic)).toEqual([kafka.deadLetterTopic]);
  });

  it('does not commit when the step between produce and commit fails (a crash there)', async () => {
    const { consumer, events } = await setUp(
      async () => {
        throw new Error('permanent');
      },
      {
        afterCopyProduced: () => {
          throw new Error('killed');
        },
      },
    );
    await consumer.deliver(source, 0, { offset: '3' });
    expect(consumer.log).toEqual([
      `send ${kafka.deadLetterTopic}[0]`,
      `seek ${source}[0]@3`,
      `pause ${source}[0]`,
    ]);
    expect(events.find((e) => e.type === 'failed')).toMatchObject({ error: { code: 'step-failed' } });
  });

  it('reports a failed commit and goes on: the next commit covers the record', async () => {
    const { consumer, events } = await setUp(async () => {});
    consumer.failCommits = 1;
    await consumer.deliver(source, 0, { offset: '3' });
    await consumer.deliver(source, 0, { offset: '4' });
    expect(consumer.log).toEqual([`commit ${source}[0]@5`]);
    expect(events.find((e) => e.type === 'failed')).toMatchObject({ error: { code: 'commit-failed' } });
  });

  it('holds a retry record that is not due: no handler call, paused until due, then handled', async () => {
    const calls: number[] = [];
    const { retrying, clock } = await setUp(async (_message, context) => void calls.push(context.attempt));
    const due = clock.now() + 1_000;
    const headers = {
      [HEADERS.attempt]: Buffer.from('2'),
      [KAFKA_HEADERS.notBefore]: Buffer.from(String(due)),
    };
    await retrying.deliver(level1, 0, { offset: '0', headers, timestamp: String(clock.now()) });
    expect(calls).toEqual([]);
    expect(retrying.log).toEqual([`seek ${level1}[0]@0`, `pause ${level1}[0]`]);
    await clock.advance(999);
    expect(retrying.log).not.toContain(`resume ${level1}[0]`);
    await clock.advance(1);
    expect(retrying.log).toContain(`resume ${level1}[0]`);
    await retrying.deliver(level1, 0, { offset: '0', headers, timestamp: String(due - 1_000) });
    expect(calls).toEqual([2]);
    expect(retrying.log.at(-1)).toBe(`commit ${level1}[0]@1`);
  });

  it('leaves the record uncommitted when the runtime stops during an in-memory wait', async () => {
    const { consumer, retry } = await setUp(async () => {
      throw httpError(503);
    });
    const run = consumer.deliver(source, 0, { offset: '9' });
    await Promise.resolve();
    await retry.stop();
    await run;
    expect(consumer.log).toEqual([`seek ${source}[0]@9`, `pause ${source}[0]`]);
  });
});
