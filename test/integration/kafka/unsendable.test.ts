import { ConfigResourceTypes } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { HEADERS } from '../../../runtime';
import { type ConsumedMessage, KAFKA_HEADERS, type KafkaHandler } from '../../../runtime/kafka';
import { Harness, header, http503, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * A copy the broker will never take, on a real Kafka and the client KAFKA_CLIENT names: a record
 * larger than a retry topic's (or the dead-letter topic's) `max.message.bytes`. It ends as a dead
 * letter with the reason, or as a dead letter without its value, and the partition moves on: no
 * endless loop of handler runs and refused sends.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const BIG = 'x'.repeat(8_000);

async function limit(h: Harness, topics: string[], bytes: number) {
  await h.admin.alterConfigs({
    validateOnly: false,
    resources: topics.map((name) => ({
      type: ConfigResourceTypes.TOPIC,
      name,
      configEntries: [{ name: 'max.message.bytes', value: String(bytes) }],
    })),
  });
}

/** Fails every record's first attempt with a 503; counts the handler's runs per value length. */
function failingOnce() {
  const runs: Array<[number, number]> = [];
  const handler: KafkaHandler = async (message, { attempt }) => {
    runs.push([message.value?.length ?? 0, attempt]);
    if (attempt === 1) throw http503();
  };
  return { runs, handler };
}

describe('a copy the broker will never take (real Kafka)', () => {
  it('a record too large for its retry topic is dead-lettered with the reason; the others retry', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('too-large'))).open();
    const { target } = harness;
    await limit(harness, [target.levels[0]?.destination ?? ''], 2_048);
    const { runs, handler } = failingOnce();
    await harness.start({ handler });
    await harness.send([
      { key: 'k', value: 'small', partition: 0 },
      { key: 'k', value: BIG, partition: 0 },
      { key: 'k', value: 'small-too', partition: 0 },
    ]);
    const [dead] = await harness.readAll(target.deadLetterTopic, 1);
    expect(String(dead?.value)).toBe(BIG);
    expect(header(dead as ConsumedMessage, HEADERS.reason)).toBe('permanent');
    expect(header(dead as ConsumedMessage, HEADERS.because)).toMatch(/^unsendable: .*MESSAGE_TOO_LARGE/);
    await waitFor(
      () => runs.filter(([, attempt]) => attempt === 2).length === 2,
      30_000,
      'the small ones retried',
    );
    // The large record ran once: no loop of runs and refused sends.
    expect(runs.filter(([length]) => length === BIG.length)).toEqual([[BIG.length, 1]]);
  });

  it('a dead letter too large for the dead-letter topic goes without its value, pointing at the record', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('too-large-dlt'))).open();
    const { target } = harness;
    await limit(harness, [target.levels[0]?.destination ?? '', target.deadLetterTopic], 2_048);
    const { runs, handler } = failingOnce();
    await harness.start({ handler });
    await harness.send([{ key: 'k', value: BIG, partition: 1 }]);
    const [dead] = await harness.readAll(target.deadLetterTopic, 1);
    expect(dead?.value ?? null).toBeNull();
    expect(header(dead as ConsumedMessage, KAFKA_HEADERS.valueDropped)).toBe(`${target.sourceTopic}[1]@0`);
    expect(header(dead as ConsumedMessage, KAFKA_HEADERS.originalOffset)).toBe('0');
    expect(runs).toEqual([[BIG.length, 1]]);
  });
});
