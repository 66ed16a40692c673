import { afterEach, describe, expect, it } from 'vitest';
import { deadLetterHeaders } from '../../../runtime';
import { KAFKA_HEADERS, kafkaDeadLetters } from '../../../runtime/kafka';
import { FAST, Harness, header, http503, kafkaPlan, uniqueName } from './support';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * A replayed Kafka record starts again on the source topic (the runtime reads every source record
 * as attempt 1). With keepAttempts, one that died on attempt 4 goes to the retry topic that
 * delivers attempt 4, due at once: one more failure and it is dead-lettered again.
 */
describe('the attempt count of a replayed Kafka dead letter', () => {
  async function run(keepAttempts: boolean) {
    harness = await new Harness(
      kafkaPlan(uniqueName('dl-attempts'), {
        backoff: { type: 'list', delays: ['200ms', '200ms', '200ms'] } as never,
      }),
    ).open();
    const { target } = harness;
    const headers = {
      ...deadLetterHeaders({
        reason: 'exhausted',
        because: 'transient: HTTP 503',
        errorName: 'HttpRequestError',
        errorMessage: 'HTTP 503',
        attempt: 4,
        source: target.levels[2]?.destination ?? '',
        firstFailureAt: 1_000,
        deadLetteredAt: Date.now(),
      }),
      [KAFKA_HEADERS.originalTopic]: target.sourceTopic,
      [KAFKA_HEADERS.originalPartition]: 2,
      [KAFKA_HEADERS.originalOffset]: 17,
    };
    await harness.producer.send({
      topic: target.deadLetterTopic,
      messages: [
        {
          key: Buffer.from('k'),
          value: Buffer.from('order-1'),
          partition: 0,
          headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])),
        },
      ],
    });
    const calls: Array<{ attempt: number; topic: string; partition: number }> = [];
    await harness.start({
      handler: async (_message, context) => {
        calls.push({ attempt: context.attempt, topic: context.topic, partition: context.partition });
        throw http503();
      },
    });
    const kit = harness.kit;
    const report = await kafkaDeadLetters(harness.plan, {
      admin: harness.clientAdmin,
      producer: harness.producer,
      client: kit.client,
      consumer: (groupId) => kit.consumer(groupId, { ...FAST, fromBeginning: true }),
    }).replay({ ratePerSecond: 50, keepAttempts, dryRun: false });
    expect(report.replayed).toBe(1);
    const dead = await harness.readAll(target.deadLetterTopic, 2, 60_000);
    return { calls, again: dead[1], target };
  }

  it('starts again at attempt 1 on the source topic, in the partition it came from', async () => {
    const { calls, again, target } = await run(false);
    expect(calls.map((call) => call.attempt)).toEqual([1, 2, 3, 4]);
    expect(calls[0]).toMatchObject({ topic: target.sourceTopic, partition: 2 });
    expect(again && header(again, 'retry-attempt')).toBe('4');
    expect(again && header(again, 'retry-replay-count')).toBe('1');
  });

  it('keeps attempt 4 with keepAttempts: the last retry topic, one more failure, dead-lettered again', async () => {
    const { calls, again, target } = await run(true);
    expect(calls).toEqual([{ attempt: 4, topic: target.levels[2]?.destination, partition: 2 }]);
    expect(again && header(again, 'retry-first-failure-at')).toBe('1000');
  });
});
