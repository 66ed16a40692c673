import { KafkaJSDeleteGroupsError, KafkaJSProtocolError } from 'kafkajs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { KafkaPlan } from '../../../policy';
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
