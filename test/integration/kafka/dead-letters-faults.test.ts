import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterHeaders } from '../../../runtime';
import type { DeadLetterError, DeadLetters } from '../../../runtime/dead-letters';
import { kafkaDeadLetters, type ProducerLike } from '../../../runtime/kafka';
import { missingAndExtra, tally } from '../dead-letters/mix';
import { replayedCopies } from './dead-letter-mix';
import { FAST, Harness, kafkaPlan, uniqueName } from './support';

/** A producer that stops working after `ok` sends, as a broker that went away would. */
function failingAfter(producer: ProducerLike, ok: number): ProducerLike {
  let sent = 0;
  return {
    send: async (record) => {
      if (sent++ >= ok) throw new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
      return producer.send(record);
    },
  };
}

describe('a Kafka replay whose broker fails mid-run', () => {
  const plan = kafkaPlan(uniqueName('dl-cut'));
  const ids = [...Array(40).keys()].map((index) => `cut-${index}`);
  let harness: Harness;
  const commands = (producer: ProducerLike): DeadLetters =>
    kafkaDeadLetters(plan, {
      admin: harness.clientAdmin,
      producer,
      client: harness.kit.client,
      consumer: (groupId) => harness.kit.consumer(groupId, { ...FAST, fromBeginning: true }),
    });

  beforeAll(async () => {
    harness = await new Harness(plan).open();
    const { target } = harness;
    await harness.producer.send({
      topic: target.deadLetterTopic,
      messages: ids.map((id, index) => ({
        key: Buffer.from(id),
        value: Buffer.from(JSON.stringify({ id })),
        partition: index % 3,
        headers: Object.fromEntries(
          Object.entries(
            deadLetterHeaders({
              reason: 'exhausted',
              because: 'transient: HTTP 503',
              errorName: 'HttpRequestError',
              errorMessage: 'HTTP 503',
              attempt: 4,
              source: target.sourceTopic,
              firstFailureAt: Date.now(),
              deadLetteredAt: Date.now(),
            }),
          ).map(([name, value]) => [name, String(value)]),
        ),
      })),
    });
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('stops with broker-failed, commits nothing it did not send, and a second run replays the rest once', async () => {
    const failure = await commands(failingAfter(harness.producer, 10))
      .replay({ ratePerSecond: 200, dryRun: false })
      .catch((error: DeadLetterError) => error);
    expect(failure).toMatchObject({ code: 'broker-failed', report: { replayed: 10, selected: 40 } });
    expect((failure as Error).message).toContain('the other 30 are still dead-lettered');

    const pending = await commands(harness.producer).list();
    expect(pending).toMatchObject({ total: 30, handled: { records: 10, replayed: 10, purged: 0 } });

    const second = await commands(harness.producer).replay({ ratePerSecond: 200, dryRun: false });
    expect(second).toMatchObject({ selected: 30, replayed: 30 });
    expect(missingAndExtra(tally(await replayedCopies(harness)), ids)).toEqual({
      missing: [],
      extra: [],
      duplicates: 0,
    });
  });
});
