import type { ConsumedMessage } from '../../../runtime/kafka';
import { type Fate, fateOf, idOf, MIX_SIZE } from '../dead-letters/mix';
import { type Harness, header, http503, type Instance, InvalidCurrencyError } from './support';

/** Kafka has no broker-side dead-lettering: the mix's broker share is one more permanent error. */
export class MalformedOrderError extends Error {
  override readonly name = 'MalformedOrderError';
}

export interface Processed {
  id: string;
  attempt: number;
  replays: string | undefined;
  replayedAt: number;
}

/**
 * Runs the real runtime on the harness and dead-letters the 500-message mix through it: invalid
 * currency, TypeError and malformed orders are permanent, 503s exhausted after four attempts. A
 * record that carries `retry-replay-count` (a replayed one) succeeds and is recorded.
 */
export async function deadLetterMix(
  harness: Harness,
): Promise<{ runtime: Instance; processed: Processed[] }> {
  const processed: Processed[] = [];
  const runtime = await harness.start({
    handler: async (message: ConsumedMessage, context) => {
      const { id, fate } = JSON.parse(String(message.value)) as { id: string; fate: Fate };
      const replays = header(message, 'retry-replay-count');
      if (replays !== undefined) {
        processed.push({
          id,
          attempt: context.attempt,
          replays,
          replayedAt: Number(header(message, 'retry-replayed-at')),
        });
        return;
      }
      if (fate === 'currency') throw new InvalidCurrencyError('Unsupported currency XXX');
      if (fate === 'type') throw new TypeError("Cannot read properties of undefined (reading 'total')");
      if (fate === 'broker') throw new MalformedOrderError('order has no lines');
      throw http503();
    },
  });
  const messages = [...Array(MIX_SIZE).keys()].map((index) => ({
    key: Buffer.from(idOf(index)),
    value: Buffer.from(JSON.stringify({ id: idOf(index), fate: fateOf(index) })),
    partition: index % 3,
    headers: {},
  }));
  for (let start = 0; start < messages.length; start += 100) {
    await harness.producer.send({
      topic: harness.target.sourceTopic,
      messages: messages.slice(start, start + 100),
    });
  }
  const dlt = harness.target.deadLetterTopic;
  const deadLetters = async () =>
    (await harness.admin.fetchTopicOffsets(dlt)).reduce((sum, each) => sum + Number(each.high), 0);
  const deadline = Date.now() + 180_000;
  while ((await deadLetters()) < MIX_SIZE) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${MIX_SIZE} dead letters in ${dlt}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { runtime, processed };
}

/** Records in the source topic that are replayed copies: their id and when they were replayed. */
async function copiesInSource(harness: Harness): Promise<Array<{ id: string; replayedAt: number }>> {
  const total = (await harness.admin.fetchTopicOffsets(harness.target.sourceTopic)).reduce(
    (sum, each) => sum + Number(each.high),
    0,
  );
  const all = await harness.readAll(harness.target.sourceTopic, total);
  return all
    .filter((message) => header(message, 'retry-replay-count') !== undefined)
    .map((message) => ({
      id: (JSON.parse(String(message.value)) as { id: string }).id,
      replayedAt: Number(header(message, 'retry-replayed-at')),
    }));
}

/** Records in the source topic that are replayed copies, by id. */
export async function replayedCopies(harness: Harness): Promise<string[]> {
  return (await copiesInSource(harness)).map((copy) => copy.id);
}

/** When each replayed copy of these ids was made (retry-replayed-at), duplicates included. */
export async function replayTimes(harness: Harness, ids: string[]): Promise<number[]> {
  const wanted = new Set(ids);
  return (await copiesInSource(harness)).filter((copy) => wanted.has(copy.id)).map((copy) => copy.replayedAt);
}
