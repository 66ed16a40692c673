import { KafkaJSDeleteGroupsError, KafkaJSProtocolError } from 'kafkajs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KafkaPlan } from '../../../policy';
import { mulberry32 } from '../../../policy/random';
import { deadLetterHeaders } from '../../../runtime';
import type { DeadLetterError } from '../../../runtime/dead-letters';
import { kafkaDeadLetters } from '../../../runtime/kafka';
import { billingPlan } from '../plan-fixture';
import { FakeDeadLetterTopic } from './dead-letter-fakes';
import { FakeProducer } from './fakes';

const plan = billingPlan();
const kafka = plan.targets.kafka as KafkaPlan;
const browsePrefix = `${kafka.deadLetterTopic}.replay.browse.`;

function headers(reason: 'permanent' | 'exhausted', errorName: string): Record<string, string> {
  const written = deadLetterHeaders({
    reason,
    because: reason,
    errorName,
    errorMessage: 'failed',
    attempt: reason === 'exhausted' ? 4 : 1,
    source: kafka.sourceTopic,
    firstFailureAt: Date.UTC(2026, 0, 1),
    deadLetteredAt: Date.UTC(2026, 0, 1),
  });
  return Object.fromEntries(Object.entries(written).map(([name, value]) => [name, String(value)]));
}

/** Nine dead letters over three partitions, and the commands on them. */
function setup(options: { records?: number; withWarnings?: boolean } = {}) {
  const topic = new FakeDeadLetterTopic(kafka.deadLetterTopic, 3);
  for (let index = 0; index < (options.records ?? 9); index++)
    topic.add(index % 3, headers(index < 3 ? 'permanent' : 'exhausted', 'HttpRequestError'));
  const warnings: string[] = [];
  const commands = kafkaDeadLetters(plan, {
    admin: topic.admin(),
    producer: new FakeProducer([]),
    consumer: (groupId) => topic.consumer(groupId),
    ...(options.withWarnings === false
      ? {}
      : { onWarning: (message: string) => void warnings.push(message) }),
  });
  return { topic, commands, warnings };
}

const browseGroups = (topic: FakeDeadLetterTopic) =>
  [...topic.groups].filter((group) => group.startsWith(browsePrefix));

/** Per throw-away group joined: its join, leave and delete, in the order they happened. */
function joinLeaveDelete(log: string[]): Array<{ group: string; lines: string[] }> {
  const joined = log.filter((line) => line.startsWith(`join ${browsePrefix}`)).map((line) => line.slice(5));
  return joined.map((group) => ({
    group,
    lines: log.filter((line) => [`join ${group}`, `leave ${group}`, `delete ${group}`].includes(line)),
  }));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Kafka dead letters: the throw-away group of a read', () => {
  it('is deleted after list, show, replay and purge, once its consumer left; the replay group stays', async () => {
    const { topic, commands, warnings } = setup();
    await commands.list();
    expect(browseGroups(topic)).toEqual([]);
    await commands.show({ limit: 2 }); // stops reading early
    expect(browseGroups(topic)).toEqual([]);
    await commands.replay({ ratePerSecond: 1_000 }); // a dry run
    await commands.purge({}); // a dry run
    expect(browseGroups(topic)).toEqual([]);

    const replay = await commands.replay({
      filter: { reasons: ['permanent'] },
      ratePerSecond: 1_000,
      dryRun: false,
    });
    expect(replay).toMatchObject({ selected: 3, replayed: 3 });
    const purge = await commands.purge({ filter: { reasons: ['exhausted'] }, expect: 6, dryRun: false });
    expect(purge).toMatchObject({ selected: 6, purged: 6 });
    expect((await commands.list()).handled).toEqual({ records: 9, replayed: 3, purged: 6 });

    expect(browseGroups(topic)).toEqual([]);
    const passes = joinLeaveDelete(topic.log);
    // list, show, two dry runs, a replay and a purge (one read each), and the last list.
    expect(passes).toHaveLength(7);
    for (const { group, lines } of passes)
      expect(lines).toEqual([`join ${group}`, `leave ${group}`, `delete ${group}`]);
    // Where replay progress lives is never deleted.
    expect(topic.groups).toEqual(new Set([`${kafka.deadLetterTopic}.replay`]));
    expect(topic.log.filter((line) => line === `delete ${kafka.deadLetterTopic}.replay`)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('is deleted when the read fails, and the command still fails as it would have', async () => {
    const { topic, commands, warnings } = setup();
    topic.runFailure = new Error('Connection error: read ECONNRESET');
    const failure = await commands.list().catch((error: DeadLetterError) => error);
    expect(failure).toMatchObject({ code: 'broker-failed' });
    expect((failure as Error).message).toContain('ECONNRESET');
    const passes = joinLeaveDelete(topic.log);
    expect(passes).toHaveLength(1);
    expect(passes[0]?.lines.map((line) => line.split(' ')[0])).toEqual(['join', 'leave', 'delete']);
    expect(browseGroups(topic)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('that cannot be deleted gives a warning naming it, and the command its result', async () => {
    const { topic, commands, warnings } = setup();
    topic.deleteFailure = new KafkaJSDeleteGroupsError('Error in DeleteGroups', [
      {
        groupId: 'any',
        errorCode: 30,
        error: new KafkaJSProtocolError(
          Object.assign(new Error('Not authorized to access group: Group authorization failed'), {
            type: 'GROUP_AUTHORIZATION_FAILED',
            code: 30,
          }),
        ),
      },
    ]);
    const summary = await commands.list();
    expect(summary.total).toBe(9);
    const [left] = browseGroups(topic);
    expect(left).toBeDefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`the consumer group ${left}`);
    expect(warnings[0]).toContain('Not authorized to access group');
    expect(warnings[0]).toContain(`--delete --group ${left}`);

    topic.deleteFailure = new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    expect(await commands.show({ limit: 3 })).toHaveLength(3);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain('ECONNREFUSED');
  });

  it('goes to a process warning when no warning handler is given', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const { topic, commands } = setup({ withWarnings: false });
    topic.deleteFailure = new Error('Connection error: connect ECONNREFUSED 127.0.0.1:9092');
    await commands.list();
    expect(emitted).toHaveBeenCalledTimes(1);
    expect(emitted.mock.calls[0]?.[0]).toContain(browsePrefix);
    expect(emitted.mock.calls[0]?.[1]).toMatchObject({ code: 'RETRY_TOPOLOGY_KAFKA_GROUP_LEFT' });
  });

  it('is not warned about when there is none: a group the broker does not know, or an empty topic', async () => {
    const { topic, commands, warnings } = setup();
    topic.deleteFailure = new KafkaJSDeleteGroupsError('Error in DeleteGroups', [
      {
        groupId: 'any',
        errorCode: 69,
        error: new KafkaJSProtocolError(
          Object.assign(new Error('The group id was not found'), { type: 'GROUP_ID_NOT_FOUND', code: 69 }),
        ),
      },
    ]);
    await commands.list();
    expect(warnings).toEqual([]);

    const empty = setup({ records: 0 });
    expect((await empty.commands.list()).total).toBe(0);
    expect(empty.topic.log).toEqual([]); // no group joined, none to delete
    expect(empty.warnings).toEqual([]);
  });
});

describe('Kafka dead letters: the order of a read', () => {
  const counts = [11, 7, 13];
  /** By partition, then offset: the order every read gives. */
  const expected = counts.flatMap((count, partition) =>
    [...Array(count).keys()].map((offset) => `${partition}:${offset}`),
  );

  /**
   * 31 dead letters over three uneven partitions, appended in a mixed order; each one's value is
   * its id, and its error name its partition. The partitions come interleaved at random.
   */
  function uneven() {
    const topic = new FakeDeadLetterTopic(kafka.deadLetterTopic, 3);
    const left = [...counts];
    const random = mulberry32(99);
    while (left.some((count) => count > 0)) {
      const partition = Math.floor(random() * 3);
      if ((left[partition] ?? 0) === 0) continue;
      left[partition] = (left[partition] ?? 0) - 1;
      const id = `${partition}:${(counts[partition] ?? 0) - (left[partition] ?? 0) - 1}`;
      expect(topic.add(partition, headers('exhausted', `P${partition}`), id)).toBe(id);
    }
    const producer = new FakeProducer([]);
    const commands = kafkaDeadLetters(plan, {
      admin: topic.admin(),
      producer,
      consumer: (groupId) => topic.consumer(groupId),
      onWarning: (message) => {
        throw new Error(`unexpected warning: ${message}`);
      },
    });
    /** Sets how the next reads interleave the partitions. */
    const interleave = (run: number) => {
      const pick = mulberry32(run);
      topic.pick = (choices) => Math.floor(pick() * choices);
    };
    return { topic, commands, producer, interleave };
  }

  it('pages `show` by partition, then offset: two runs interleaved differently page the same, none twice, none missed', async () => {
    const { commands, interleave } = uneven();
    const paged = async (run: number) => {
      const pages: string[][] = [];
      for (let skip = 0; ; skip += 5) {
        interleave(run + skip);
        const page = (await commands.show({ skip, limit: 5 })).map((letter) => letter.id);
        if (page.length === 0) break;
        pages.push(page);
      }
      return pages;
    };
    const first = await paged(1);
    const second = await paged(1_000);
    expect(first.flat()).toEqual(expected);
    expect(second).toEqual(first);
    // A filter pages the same way, within what it selects.
    interleave(7);
    const partitionTwo = await commands.show({ filter: { errorNames: ['P2'] }, skip: 4, limit: 6 });
    expect(partitionTwo.map((letter) => letter.id)).toEqual(
      expected.filter((id) => id.startsWith('2:')).slice(4, 10),
    );
  });

  it('takes the first N in that order for --max, in list, show, replay and purge', async () => {
    const { commands, producer, interleave } = uneven();
    interleave(2);
    const listed = await commands.list({ filter: { max: 13 } });
    expect(listed.selected).toBe(13);
    expect(listed.byErrorName).toEqual([
      { name: 'P0', count: 11 },
      { name: 'P1', count: 2 },
    ]);
    interleave(3);
    expect((await commands.show({ filter: { max: 13 }, limit: 100 })).map((letter) => letter.id)).toEqual(
      expected.slice(0, 13),
    );
    interleave(4);
    expect((await commands.replay({ filter: { max: 7 }, ratePerSecond: 1_000 })).sample).toEqual(
      expected.slice(0, 7),
    );

    interleave(5);
    const replayed = await commands.replay({ filter: { max: 4 }, ratePerSecond: 1_000, dryRun: false });
    expect(replayed).toMatchObject({ selected: 4, replayed: 4 });
    expect(producer.sent.map((sent) => String(sent.message.value))).toEqual(expected.slice(0, 4));
    interleave(6);
    const purged = await commands.purge({ filter: { max: 3 }, expect: 3, dryRun: false });
    expect(purged).toMatchObject({ selected: 3, purged: 3, sample: expected.slice(4, 7) });
    interleave(8);
    expect((await commands.show({ limit: 100 })).map((letter) => letter.id)).toEqual(expected.slice(7));
  });

  it('gives each record once when a partition is read twice (a rebalance restarts a group that never commits)', async () => {
    const { topic, commands, interleave } = uneven();
    interleave(9);
    topic.rewind = { partition: 1, after: 4 };
    expect((await commands.show({ limit: 100 })).map((letter) => letter.id)).toEqual(expected);
    topic.rewind = { partition: 2, after: 12 };
    expect((await commands.list()).total).toBe(31);
  });
});
