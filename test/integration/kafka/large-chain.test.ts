import { afterEach, expect, it } from 'vitest';
import type { AdminLike } from '../../../runtime/kafka';
import { KAFKA_HEADERS } from '../../../runtime/kafka';
import { describePerKey, Harness, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * park-key with a large retry chain: a long outage leaves more copies waiting than the chain
 * view keeps between snapshots (10,000). The view must stay bounded in memory without paying a
 * snapshot (an OffsetFetch, a ListOffsets per retry topic, the reader catching up) for every
 * source record.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const COPIES = 12_000;
const RECORDS = 300;

describePerKey('park-key with more copies in the chain than the view keeps between snapshots', () => {
  it('handles source records without a snapshot each', async () => {
    // One level of 10 minutes: the copies stay in the chain for the whole test.
    const plan = kafkaPlan(uniqueName('large-chain'), {
      ordering: 'per-key',
      maxAttempts: 2,
      backoff: { type: 'list', delays: ['10m'] },
    });
    harness = await new Harness(plan).open();
    const { target } = harness;
    const level = target.levels[0]?.destination ?? '';
    // Copies as the runtime writes them, of source records 0..COPIES-1 with keys of their own.
    const notBefore = String(Date.now() + 600_000);
    for (let from = 0; from < COPIES; from += 1_000) {
      await harness.producer.send({
        topic: level,
        messages: Array.from({ length: 1_000 }, (_, i) => ({
          key: Buffer.from(`waiting-${from + i}`),
          value: Buffer.from('w'),
          partition: 0,
          headers: {
            [KAFKA_HEADERS.originalTopic]: target.sourceTopic,
            [KAFKA_HEADERS.originalPartition]: '0',
            [KAFKA_HEADERS.originalOffset]: String(from + i),
            [KAFKA_HEADERS.notBefore]: notBefore,
            'retry-attempt': '2',
          },
        })),
      });
    }
    // Snapshots counted where they start: an OffsetFetch of the retry group.
    let snapshots = 0;
    const admin = harness.clientAdmin;
    const counting: AdminLike = {
      listTopics: () => admin.listTopics(),
      createTopics: (options) => admin.createTopics(options),
      fetchTopicOffsets: (topic) => admin.fetchTopicOffsets(topic),
      fetchOffsets: (options) => {
        if (options.groupId === target.retryConsumerGroup) snapshots++;
        return admin.fetchOffsets(options);
      },
    };
    const handled: string[] = [];
    await harness.start({
      admin: counting,
      handler: async (message) => void handled.push(String(message.value)),
    });
    const before = snapshots;
    const started = Date.now();
    await harness.send(Array.from({ length: RECORDS }, (_, i) => ({ key: `fresh-${i}`, value: `r${i}` })));
    await waitFor(() => handled.length >= RECORDS, 90_000, `${RECORDS} source records`);
    const took = Date.now() - started;
    const taken = snapshots - before;
    console.log(`${COPIES} copies in the chain: ${RECORDS} source records in ${took} ms, ${taken} snapshots`);
    expect(handled).toHaveLength(RECORDS);
    // The first record after the start takes one (a new assignment); a bounded view takes a few more.
    expect(taken).toBeLessThan(RECORDS / 10);
  }, 180_000);
});
