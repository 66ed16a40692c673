import { afterEach, describe, expect, it } from 'vitest';
import type { AdminLike } from '../../../runtime/kafka';
import { KAFKA_HEADERS } from '../../../runtime/kafka';
import { Harness, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * park-key with a large retry chain: a long outage leaves 12,000 copies waiting. The member reads
 * the chain once when it is assigned (its commits and log ends: an OffsetFetch of the group), and
 * never again while the group is stable, however many source records come.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const COPIES = 12_000;
const RECORDS = 300;

describe('park-key with 12,000 copies waiting in the chain', () => {
  it('reads the chain once, then handles source records without reading it again', async () => {
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
    // Chain reads counted where they start: an OffsetFetch of the group.
    let reads = 0;
    const admin = harness.clientAdmin;
    const counting: AdminLike = {
      listTopics: () => admin.listTopics(),
      createTopics: (options) => admin.createTopics(options),
      fetchTopicOffsets: (topic) => admin.fetchTopicOffsets(topic),
      fetchOffsets: (options) => {
        if (options.groupId === target.consumerGroup) reads++;
        return admin.fetchOffsets(options);
      },
    };
    const handled: string[] = [];
    await harness.startChain({
      admin: counting,
      handler: async (message) => void handled.push(String(message.value)),
    });
    const started = Date.now();
    await harness.send(Array.from({ length: RECORDS }, (_, i) => ({ key: `fresh-${i}`, value: `r${i}` })));
    await waitFor(() => handled.length >= RECORDS, 90_000, `${RECORDS} source records`);
    const took = Date.now() - started;
    console.log(
      `${COPIES} copies in the chain: ${RECORDS} source records in ${took} ms, ${reads} chain reads`,
    );
    // Only the fresh records ran: the waiting copies are not due for ten minutes.
    expect([...handled].sort()).toEqual(Array.from({ length: RECORDS }, (_, i) => `r${i}`).sort());
    // One per assignment: the first join (and a rejoin, should the group rebalance once).
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(2);
  }, 180_000);
});
