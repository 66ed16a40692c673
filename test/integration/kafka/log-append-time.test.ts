import { ConfigResourceTypes } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { type Clock, systemClock } from '../../../runtime';
import type { KafkaHandler } from '../../../runtime/kafka';
import { Harness, http503, kafkaPlan, uniqueName, waitFor } from './support';

/**
 * Per-key order on retry topics whose broker stamps each record itself
 * (`message.timestamp.type=LogAppendTime`), with the broker's clock behind the runtime's: every
 * copy comes back stamped earlier than the runtime made it. The runtime knows its own copies by
 * the header it writes, so none is taken for an older copy and committed unrun.
 */

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** This process's clock, a minute ahead of the broker's. */
const ahead: Clock = { now: () => Date.now() + 60_000, sleep: systemClock.sleep };

describe('per-key order on LogAppendTime retry topics (real Kafka)', () => {
  it('a record fails twice and succeeds at attempt 3: no copy is lost to the broker’s timestamps', async () => {
    harness = await new Harness(kafkaPlan(uniqueName('log-append'), { ordering: 'per-key' })).open();
    const { target } = harness;
    await harness.admin.alterConfigs({
      validateOnly: false,
      resources: target.levels.map((level) => ({
        type: ConfigResourceTypes.TOPIC,
        name: level.destination,
        configEntries: [{ name: 'message.timestamp.type', value: 'LogAppendTime' }],
      })),
    });
    const seen: Array<[string, number]> = [];
    const handler: KafkaHandler = async (message, { attempt }) => {
      seen.push([String(message.value), attempt]);
      if (String(message.value) === 'placed' && attempt < 3) throw http503();
    };
    await harness.startChain({ handler, clock: ahead });
    await harness.send([
      { key: 'order-42', value: 'placed' },
      { key: 'order-42', value: 'paid' },
    ]);
    await waitFor(() => seen.some(([value]) => value === 'paid'), 60_000, 'the follower');
    expect(seen).toEqual([
      ['placed', 1],
      ['placed', 2],
      ['placed', 3],
      ['paid', 1],
    ]);
    const dead = await harness.admin.fetchTopicOffsets(target.deadLetterTopic);
    expect(dead.reduce((sum, each) => sum + Number(each.high), 0)).toBe(0);
  });
});
