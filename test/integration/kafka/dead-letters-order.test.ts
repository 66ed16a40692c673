import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterHeaders } from '../../../runtime';
import type { DeadLetter, DeadLetters } from '../../../runtime/dead-letters';
import { kafkaDeadLetters, type OutgoingMessage } from '../../../runtime/kafka';
import { missingAndExtra, tally } from '../dead-letters/mix';
import { FAST, Harness, kafkaPlan, uniqueName } from './support';

/**
 * The order of the Kafka dead-letter reads, and the groups they leave, on the real broker. A
 * consumer gets the partitions interleaved as its fetches come back, differently on each run;
 * `show --skip/--limit` pages and `--max` hold still only because a read sorts by partition, then
 * offset. Each read joins a group of its own, `<dlt>.replay.browse.<uuid>`, and deletes it.
 */
describe('Kafka dead letters: one order on every run, and no group left behind', () => {
  const plan = kafkaPlan(uniqueName('dl-order'));
  /** Dead letters per partition: uneven, so no page lines up with a partition's end. */
  const counts = [37, 23, 41];
  /** By partition, then offset: the order every read gives (the topic is new, so offset = index). */
  const expected = counts.flatMap((count, partition) =>
    [...Array(count).keys()].map((offset) => `${partition}:${offset}`),
  );
  const warnings: string[] = [];
  let harness: Harness;
  let commands: DeadLetters;

  const browseGroupsLeft = async () =>
    (await harness.admin.listGroups()).groups
      .map((group) => group.groupId)
      .filter((groupId) => groupId.startsWith(`${harness.target.deadLetterTopic}.replay.browse.`));
  /** The id each record was produced with, read back from its body. */
  const producedAs = (letter: DeadLetter) => (JSON.parse(letter.body.toString()) as { id: string }).id;

  beforeAll(async () => {
    harness = await new Harness(plan).open();
    const { target } = harness;
    // Partitions take turns, a few records at a time, in several sends: each partition's records
    // are spread over the log's time, as dead letters of a real run are.
    const next = counts.map(() => 0);
    const messages: OutgoingMessage[] = [];
    for (let turn = 0; messages.length < expected.length; turn++) {
      const partition = turn % counts.length;
      for (let run = 0; run < 1 + (turn % 4) && (next[partition] ?? 0) < (counts[partition] ?? 0); run++) {
        const id = `${partition}:${next[partition]}`;
        next[partition] = (next[partition] ?? 0) + 1;
        const headers = deadLetterHeaders({
          reason: 'exhausted',
          because: 'transient: HTTP 503',
          errorName: `P${partition}`,
          errorMessage: 'HTTP 503',
          attempt: 4,
          source: target.sourceTopic,
          firstFailureAt: Date.now(),
          deadLetteredAt: Date.now(),
        });
        messages.push({
          key: Buffer.from(id),
          value: Buffer.from(JSON.stringify({ id })),
          partition,
          headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)])),
        });
      }
    }
    for (let start = 0; start < messages.length; start += 10)
      await harness.producer.send({
        topic: target.deadLetterTopic,
        messages: messages.slice(start, start + 10),
      });
    const kit = harness.kit;
    commands = kafkaDeadLetters(plan, {
      admin: harness.clientAdmin,
      producer: harness.producer,
      client: kit.client,
      consumer: (groupId) => kit.consumer(groupId, { ...FAST, fromBeginning: true }),
      onWarning: (message) => void warnings.push(message),
    });
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('pages show by partition, then offset: two paged runs give the same dead letters, none twice, none missing', async () => {
    const paged = async () => {
      const pages: string[][] = [];
      for (let skip = 0; ; skip += 17) {
        const page = await commands.show({ skip, limit: 17 });
        for (const letter of page) expect(producedAs(letter)).toBe(letter.id);
        if (page.length === 0) break;
        pages.push(page.map((letter) => letter.id));
        expect(await browseGroupsLeft()).toEqual([]);
      }
      return pages;
    };
    const first = await paged();
    const second = await paged();
    expect(first).toHaveLength(Math.ceil(expected.length / 17));
    expect(missingAndExtra(tally(first.flat()), expected)).toEqual({ missing: [], extra: [], duplicates: 0 });
    expect(first.flat()).toEqual(expected);
    expect(second).toEqual(first);
    expect(await browseGroupsLeft()).toEqual([]);
    expect(warnings).toEqual([]);
  }, 300_000);

  it('takes the first N in that order for --max in list, replay and purge, and deletes every read’s group', async () => {
    for (let run = 0; run < 2; run++) {
      const listed = await commands.list({ filter: { max: 50 } });
      expect(listed.selected).toBe(50);
      expect(listed.byErrorName).toEqual([
        { name: 'P0', count: 37 },
        { name: 'P1', count: 13 },
      ]);
      expect(await browseGroupsLeft()).toEqual([]);
    }
    const dry = await commands.replay({ filter: { max: 10 }, ratePerSecond: 100 });
    expect(dry.sample).toEqual(expected.slice(0, 10));
    expect(await browseGroupsLeft()).toEqual([]);

    const replayed = await commands.replay({ filter: { max: 5 }, ratePerSecond: 100, dryRun: false });
    expect(replayed).toMatchObject({ selected: 5, replayed: 5, sample: expected.slice(0, 5) });
    expect(await browseGroupsLeft()).toEqual([]);
    const purged = await commands.purge({ filter: { max: 4 }, expect: 4, dryRun: false });
    expect(purged).toMatchObject({ selected: 4, purged: 4, sample: expected.slice(5, 9) });
    expect(await browseGroupsLeft()).toEqual([]);

    const pending = await commands.show({ limit: 1_000 });
    expect(pending.map((letter) => letter.id)).toEqual(expected.slice(9));
    expect((await commands.list()).handled).toEqual({ records: 9, replayed: 5, purged: 4 });
    expect(await browseGroupsLeft()).toEqual([]);
    // The group replay progress lives in stays.
    const groups = (await harness.admin.listGroups()).groups.map((group) => group.groupId);
    expect(groups).toContain(`${harness.target.deadLetterTopic}.replay`);
    expect(warnings).toEqual([]);
  }, 300_000);
});
