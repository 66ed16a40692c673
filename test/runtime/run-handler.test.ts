import { describe, expect, it } from 'vitest';
import { createMetrics, type MeterLike, runHandler, targetRules } from '../../runtime';
import { FakeClock } from '../support/fake-clock';
import { billingPlan, httpError } from './plan-fixture';

/** A meter that records what it is given, typed against the interface a real Meter satisfies. */
function recordingMeter() {
  const records: Array<{ name: string; value: number; attributes?: Record<string, string | number> }> = [];
  const meter: MeterLike = {
    createCounter: (name) => ({ add: (value, attributes) => void records.push({ name, value, attributes }) }),
    createHistogram: (name) => ({
      record: (value, attributes) => void records.push({ name, value, attributes }),
    }),
  };
  return { meter, records };
}

describe('runHandler', () => {
  const rules = targetRules(billingPlan({ immediate: { retries: 2, delay: '100ms' } }), 'kafka');

  it('makes the immediate retries in memory, then hands back a delayed retry', async () => {
    const clock = new FakeClock();
    const { meter, records } = recordingMeter();
    let calls = 0;
    const run = runHandler(rules, {
      attempt: 1,
      call: async () => {
        calls++;
        throw httpError(503);
      },
      clock,
      random: () => 0.5,
      metrics: createMetrics({ policy: 'p', target: 'kafka' }, meter),
    });
    await clock.advance(200);
    const result = await run;
    expect(calls).toBe(3);
    expect(result.decision).toMatchObject({ kind: 'delayed', level: 1, nextAttempt: 2 });
    expect(records.filter((r) => r.name === 'retry_topology.retries_scheduled')).toHaveLength(2);
    expect(
      records.filter((r) => r.name === 'retry_topology.handler.duration').map((r) => r.attributes?.outcome),
    ).toEqual(['failure', 'failure', 'failure']);
  });

  it('goes on from a first call the adapter made and saw fail: judged as if made here, not made again', async () => {
    const clock = new FakeClock();
    const { meter, records } = recordingMeter();
    let calls = 0;
    const run = runHandler(rules, {
      attempt: 1,
      call: async () => {
        calls++;
      },
      firstFailure: { error: httpError(503), started: 1_000, ended: 1_250 },
      clock,
      random: () => 0.5,
      metrics: createMetrics({ policy: 'p', target: 'kafka' }, meter),
    });
    await clock.advance(100);
    const result = await run;
    // One immediate retry, which succeeds: the handler was called once here, twice in all.
    expect(calls).toBe(1);
    expect(result).toEqual({ decision: { kind: 'ack' }, handlerCalls: 2 });
    expect(
      records
        .filter((r) => r.name === 'retry_topology.handler.duration')
        .map((r) => [r.value, r.attributes?.outcome]),
    ).toEqual([
      [250, 'failure'],
      [0, 'success'],
    ]);
  });

  it('a first failure given without an error (a bare `throw undefined`) is still a failure', async () => {
    const result = await runHandler(targetRules(billingPlan(), 'kafka'), {
      attempt: 4,
      call: async () => {
        throw new Error('not called');
      },
      firstFailure: { error: undefined, started: 0, ended: 0 },
      clock: new FakeClock(),
      random: () => 0.5,
      metrics: createMetrics({ policy: 'p', target: 'kafka' }, undefined),
    });
    expect(result.decision.kind).toBe('dead-letter');
    expect(String(result.error)).toMatch(/threw undefined/);
  });

  it('a first failure given once the consumer stops gives the message back', async () => {
    const stop = new AbortController();
    stop.abort();
    const result = await runHandler(rules, {
      attempt: 1,
      call: async () => {
        throw new Error('not called');
      },
      firstFailure: { error: stop.signal.reason, started: 0, ended: 0 },
      clock: new FakeClock(),
      random: () => 0.5,
      metrics: createMetrics({ policy: 'p', target: 'kafka' }, undefined),
      signal: stop.signal,
    });
    expect(result.decision).toEqual({ kind: 'requeue' });
  });

  it('acks when an immediate retry succeeds', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const run = runHandler(rules, {
      attempt: 1,
      call: async () => {
        if (++calls === 1) throw httpError(503);
      },
      clock,
      random: () => 0.5,
      metrics: createMetrics({ policy: 'p', target: 'kafka' }, undefined),
    });
    await clock.advance(100);
    expect((await run).decision).toEqual({ kind: 'ack' });
  });

  it('gives the message back when the consumer stops during an in-memory wait', async () => {
    const clock = new FakeClock();
    const stop = new AbortController();
    const run = runHandler(rules, {
      attempt: 1,
      call: async () => {
        throw httpError(503);
      },
      clock,
      random: () => 0.5,
      metrics: createMetrics({ policy: 'p', target: 'kafka' }, undefined),
      signal: stop.signal,
    });
    await clock.advance(10);
    stop.abort();
    expect((await run).decision).toEqual({ kind: 'requeue' });
  });
});

describe('a handler failure that ends once the consumer is stopping', () => {
  const unknownPermanent = targetRules(billingPlan(), 'kafka');
  const unknownTransient = targetRules(billingPlan({ classify: { unknown: 'transient' } } as never), 'kafka');
  const shapes: Array<[string, (signal: AbortSignal) => unknown]> = [
    ['the signal’s reason (fetch)', (signal) => signal.reason],
    [
      'an AbortError (timers/promises, drivers)',
      () => new DOMException('The operation was aborted', 'AbortError'),
    ],
    ['an error of its own (a connection closed under it)', () => new Error('connection reset')],
  ];

  it.each(shapes)(
    'is given back, neither dead-lettered nor charged an attempt: %s',
    async (_shape, rejection) => {
      for (const rules of [unknownPermanent, unknownTransient]) {
        const stop = new AbortController();
        const run = runHandler(rules, {
          attempt: 2,
          call: () =>
            new Promise<void>((_resolve, reject) =>
              stop.signal.addEventListener('abort', () => reject(rejection(stop.signal)), { once: true }),
            ),
          clock: new FakeClock(),
          random: () => 0.5,
          metrics: createMetrics({ policy: 'p', target: 'kafka' }, undefined),
          signal: stop.signal,
        });
        stop.abort(new Error('the consumer is stopping'));
        expect((await run).decision).toEqual({ kind: 'requeue' });
      }
    },
  );

  it('is judged as usual when it ended before the stop', async () => {
    const stop = new AbortController();
    const run = await runHandler(unknownPermanent, {
      attempt: 1,
      call: async () => {
        throw new Error('unknown');
      },
      clock: new FakeClock(),
      random: () => 0.5,
      metrics: createMetrics({ policy: 'p', target: 'kafka' }, undefined),
      signal: stop.signal,
    });
    stop.abort();
    expect(run.decision).toMatchObject({ kind: 'dead-letter', reason: 'permanent' });
  });

  it('a handler that finishes once the stop began is acked: its work is done', async () => {
    const stop = new AbortController();
    stop.abort();
    const run = await runHandler(unknownPermanent, {
      attempt: 1,
      call: async () => {},
      clock: new FakeClock(),
      random: () => 0.5,
      metrics: createMetrics({ policy: 'p', target: 'kafka' }, undefined),
      signal: stop.signal,
    });
    expect(run.decision).toEqual({ kind: 'ack' });
  });
});
