import { afterEach, describe, expect, it } from 'vitest';
import { KAFKA_HEADERS } from '../../../runtime/kafka';
import { KIT_NAME } from '../../support/kafka-kit';
import { Harness, header, http503, kafkaPlan, uniqueName, waitFor } from './support';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * The consumer's liveness timeouts, each shorter than the 10 s wait. KafkaJS has no
 * max.poll.interval.ms: a member that does not heartbeat for sessionTimeout (6 s) is evicted, and
 * it heartbeats only between records. The Confluent client heartbeats from librdkafka's own
 * thread; a member that does not come back for the next record within max.poll.interval.ms
 * leaves the group, and the client sets that to twice rebalanceTimeout (1.10.1): 3 s gives 6 s.
 * 6 s is the broker's smallest allowed session (group.min.session.timeout.ms, Kafka 4.4.0).
 */
const LIVENESS = {
  sessionTimeout: 6_000,
  rebalanceTimeout: KIT_NAME === 'confluent' ? 3_000 : 6_000,
  heartbeatInterval: 500,
  maxWaitTimeInMs: 100,
};

describe('a retry wait longer than the consumer liveness timeout', () => {
  it('holds the record by pause/resume with no rebalance, where a blocking wait gets the member evicted', async () => {
    harness = await new Harness(
      kafkaPlan(
        uniqueName('liveness'),
        { maxAttempts: 2, backoff: { type: 'list', delays: ['10s'] } },
        { partitions: 1, maxPollInterval: '6s' },
      ),
    ).open();
    const { target } = harness;
    const level = target.levels[0];
    if (!level) throw new Error('no level');
    const attempts: Array<{ attempt: number; at: number }> = [];
    const joins: number[] = [];
    const troubles: string[] = [];
    await harness.start(
      {
        handler: async (_message, context) => {
          attempts.push({ attempt: context.attempt, at: Date.now() });
          if (context.attempt === 1) throw http503();
        },
      },
      {
        retry: {
          ...LIVENESS,
          onJoin: () => void joins.push(Date.now()),
          onTrouble: (what) => void troubles.push(what),
        },
      },
    );

    // The peer to beat, on the same copies and the same client: a consumer that sleeps in the
    // handler until the record is due.
    const naiveJoins: number[] = [];
    const naive = await harness.clientConsumer(`${target.consumerGroup}.naive`, {
      ...LIVENESS,
      fromBeginning: true,
      onJoin: () => void naiveJoins.push(Date.now()),
    });
    await naive.subscribe({
      topics: [level.destination],
      ...(harness.kit.client === 'kafkajs' ? { fromBeginning: true } : {}),
    });
    await naive.run({
      eachMessage: async ({ message }) => {
        const due = Number(header(message, KAFKA_HEADERS.notBefore));
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
      },
    });

    await harness.send([{ key: 'order-1', value: 'A', partition: 0 }]);
    await waitFor(() => attempts.length === 2, 40_000, 'attempt 2');
    // The naive member comes back from its sleep, finds it was evicted, and joins again.
    await waitFor(() => naiveJoins.length >= 2, 30_000, 'the blocking consumer to rejoin');

    const [first, second] = attempts;
    expect(second?.attempt).toBe(2);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(10_000);
    expect(joins).toHaveLength(1);
    expect(troubles).toEqual([]);
  });
});
