import type { KafkaMessage } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { mathRandom } from '../../../runtime/clock';
import { BatchWork, Crew } from '../../../runtime/kafka/crew';
import { type Runtime, read } from '../../../runtime/kafka/delivery';
import type { KafkaHandler } from '../../../runtime/kafka/options';
import { type Decided, type Entry, NOT_STARTED, unordered } from '../../../runtime/kafka/ordering';
import { noMetrics } from '../../../runtime/metrics';
import { targetRules } from '../../../runtime/rules';
import { FakeClock, flush } from '../../support/fake-clock';
import { billingPlan, httpError } from '../plan-fixture';

/** The crew (crew.ts) on its own: how many handlers run at once, and in which order batches take turns. */

const plan = billingPlan();

function runtime(handler: KafkaHandler): Runtime {
  const never = new AbortController().signal;
  return {
    rules: targetRules(plan, 'kafka'),
    handler,
    producer: { send: async () => [] },
    client: 'kafkajs',
    clock: new FakeClock(),
    random: mathRandom,
    metrics: noMetrics,
    countParked: () => undefined,
    stopping: never,
    abandoned: never,
    emit: () => undefined,
    listening: false,
    producerBroken: async () => undefined,
  };
}

/** A batch of `values` on partition `partition`, every record a lane of its own. */
function batch(partition: number, values: string[], mayStart: () => boolean = () => true) {
  const entries: Entry[] = values.map((value, index) => {
    const message: KafkaMessage = {
      key: null,
      value: Buffer.from(value),
      timestamp: '0',
      attributes: 0,
      offset: String(index),
      headers: {},
    };
    const d = { role: 'main' as const, topic: 'orders', partition, message };
    return { index, ...d, reading: read(d), offset: BigInt(index), doneBefore: false };
  });
  const decided: Decided[] = entries.map(() => NOT_STARTED);
  return new BatchWork(entries, undefined, unordered, decided, mayStart);
}

describe('the crew', () => {
  it('runs at most `limit` handlers at once, across batches', async () => {
    let running = 0;
    let most = 0;
    const gates: Array<() => void> = [];
    const crew = new Crew(
      2,
      runtime(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => gates.push(resolve));
        running--;
      }),
    );
    const done = [crew.run(batch(0, ['a', 'b', 'c'])), crew.run(batch(1, ['d', 'e']))];
    for (let released = 0; released < 5; released++) {
      await flush();
      expect(running).toBeLessThanOrEqual(2);
      gates.shift()?.();
    }
    await Promise.all(done);
    expect(most).toBe(2);
  });

  it('gives each batch its turn: a large batch does not make another wait for all of it', async () => {
    const started: string[] = [];
    let release: () => void = () => {};
    const first = new Promise<void>((resolve) => {
      release = resolve;
    });
    const crew = new Crew(
      1,
      runtime(async (message) => {
        started.push(String(message.value));
        if (String(message.value) === 'a0') await first;
      }),
    );
    const a = crew.run(batch(0, ['a0', 'a1', 'a2', 'a3', 'a4']));
    const b = crew.run(batch(1, ['b0', 'b1']));
    release();
    await Promise.all([a, b]);
    expect(started).toEqual(['a0', 'a1', 'b0', 'a2', 'b1', 'a3', 'a4']);
  });

  it('records what each record came to; one that may not start leaves it and the rest not started', async () => {
    let allowed = 2;
    const crew = new Crew(
      1,
      runtime(async (message) => {
        if (String(message.value) === 'fails') throw httpError(503);
      }),
    );
    const work = batch(0, ['ok', 'fails', 'late', 'later'], () => allowed-- > 0);
    await crew.run(work);
    expect(work.decided.map((turn) => (turn.kind === 'ran' ? turn.run.decision.kind : turn.kind))).toEqual([
      'ack',
      'delayed',
      'not-started',
      'not-started',
    ]);
  });

  it('keeps its line bounded while batches keep coming', async () => {
    const crew = new Crew(
      1,
      runtime(async () => {}),
    );
    let most = 0;
    const runs: Array<Promise<void>> = [];
    // 200 batches of 50 records through one worker: each turn puts a batch back in line.
    for (let partition = 0; partition < 200; partition++) {
      runs.push(
        crew.run(
          batch(
            partition,
            Array.from({ length: 50 }, (_, at) => `r${at}`),
          ),
        ),
      );
      most = Math.max(most, crew.retained);
    }
    while (crew.retained > 0) {
      most = Math.max(most, crew.retained);
      await flush();
    }
    await Promise.all(runs);
    expect(most).toBeLessThan(2 * 1_024 + 400);
  });
});
