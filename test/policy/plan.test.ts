import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { derivePlan, loadPolicyText, PolicyError, type PolicyInput, parsePolicy } from '../../policy';
import { changed, cleanPolicy, withChanges } from './fixtures';

function planOf(input: unknown) {
  return derivePlan(parsePolicy(input as PolicyInput));
}

describe('the billing example', () => {
  const loaded = loadPolicyText(readFileSync('policies/billing.yaml', 'utf8'), 'policies/billing.yaml');
  const policy = loaded.policies[0]?.policy;
  if (!policy) throw new Error('billing example did not load');
  const plan = derivePlan(policy);
  const rabbit = plan.targets.rabbitmq;

  it('waits 1000, 2000 and 4000 ms before attempts 2, 3 and 4', () => {
    expect(plan.delaysMs).toEqual([1000, 2000, 4000]);
    expect(rabbit?.stages.map((stage) => [stage.attempt, stage.waitMs, stage.windowMs.max])).toEqual([
      [1, { min: 0, max: 0 }, 0],
      [2, { min: 1000, max: 1000 }, 1000],
      [3, { min: 2000, max: 2000 }, 3000],
      [4, { min: 4000, max: 4000 }, 7000],
    ]);
  });

  it('has a main queue, a dead-letter queue and three wait queues', () => {
    expect(rabbit?.queues.map((queue) => [queue.role, queue.name])).toEqual([
      ['main', 'billing.order-placed'],
      ['wait', 'billing.order-placed.retry.1'],
      ['wait', 'billing.order-placed.retry.2'],
      ['wait', 'billing.order-placed.retry.3'],
      ['dead-letter', 'billing.order-placed.dlq'],
    ]);
  });

  it('returns every wait queue to the main queue only, through the default exchange', () => {
    const waits = rabbit?.queues.filter((queue) => queue.role === 'wait') ?? [];
    for (const queue of waits) {
      expect(queue.effective['x-dead-letter-exchange']).toBe('');
      expect(queue.effective['x-dead-letter-routing-key']).toBe('billing.order-placed');
      expect(queue.effective['x-message-ttl']).toBe(queue.delayMs);
    }
    // Nothing routes from the source exchange to a wait queue.
    expect(
      rabbit?.bindings.filter((b) => b.source === 'bookstore.ordering').map((b) => b.destination),
    ).toEqual(['billing.order-placed']);
  });

  it('makes every queue a durable quorum queue whose arguments hold only the queue type and its replica count', () => {
    for (const queue of rabbit?.queues ?? []) {
      expect(queue).toMatchObject({
        durable: true,
        autoDelete: false,
        // The example runs on a one-node development broker: one member per queue.
        arguments: { 'x-queue-type': 'quorum', 'x-quorum-initial-group-size': 1 },
        replication: { replicas: 1, confirmedOn: 1, survivesDown: 0, writesWithDown: 0 },
      });
      expect(Object.keys(queue.arguments).sort()).toEqual(['x-queue-type', 'x-quorum-initial-group-size']);
    }
  });

  it('dead-letters at least once, with reject-publish, and an explicit delivery limit on the main queue', () => {
    const main = rabbit?.queues.find((queue) => queue.role === 'main');
    expect(main?.effective).toMatchObject({
      'x-dead-letter-exchange': 'billing.order-placed.dlx',
      'x-dead-letter-strategy': 'at-least-once',
      'x-overflow': 'reject-publish',
      'x-delivery-limit': 5,
    });
    expect(typeof main?.effective['x-delivery-limit']).toBe('number');
  });

  it('plans Kafka retry topics with the source partition count and a dead-letter topic', () => {
    expect(plan.targets.kafka?.topics.map((topic) => [topic.role, topic.name, topic.partitions])).toEqual([
      ['source', 'bookstore.orders', 3],
      ['retry', 'billing.order-placed.retry.1', 3],
      ['retry', 'billing.order-placed.retry.2', 3],
      ['retry', 'billing.order-placed.retry.3', 3],
      ['dead-letter', 'billing.order-placed.dlt', 3],
    ]);
  });

  it('schedules Service Bus copies of a subscription on a retry queue, not the shared topic', () => {
    expect(plan.targets.serviceBus?.scheduleTo).toBe('billing.order-placed.retry');
    expect(plan.targets.serviceBus?.entities.map((entity) => [entity.role, entity.kind])).toEqual([
      ['main', 'subscription'],
      ['retry', 'queue'],
    ]);
  });

  it('carries the no-jitter warning with the plan', () => {
    expect(plan.findings.map((found) => found.code)).toEqual(['no-jitter']);
  });
});

describe.each([
  ['exponential, no cap', { type: 'exponential', initial: '1s', multiplier: 3 }, 4, [1000, 3000, 9000]],
  [
    'exponential, capped',
    { type: 'exponential', initial: '1s', multiplier: 2, max: '3s' },
    5,
    [1000, 2000, 3000, 3000],
  ],
  ['multiplier 1', { type: 'exponential', initial: '5s', multiplier: 1 }, 3, [5000, 5000]],
  ['explicit list', { type: 'list', delays: ['10s', '1m', '10m'] }, 4, [10_000, 60_000, 600_000]],
  ['single attempt', { type: 'exponential', initial: '1s' }, 1, []],
])('delays: %s', (_name, backoff, maxAttempts, delays) => {
  it(`are ${JSON.stringify(delays)}`, () => {
    const plan = planOf(
      withChanges([
        [['spec', 'backoff'], backoff],
        [['spec', 'maxAttempts'], maxAttempts],
        [['spec', 'deadline'], undefined],
        [['spec', 'messageTtl'], undefined],
        [['spec', 'targets', 'kafka', 'retryRetention'], '30d'],
      ]),
    );
    expect(plan.delaysMs).toEqual(delays);
    expect(plan.targets.kafka?.levels.map((level) => level.delayMs)).toEqual(delays);
    expect(plan.targets.kafka?.stages).toHaveLength(maxAttempts);
  });
});

describe.each([
  ['none', { min: 2000, max: 2000 }],
  ['full', { min: 0, max: 2000 }],
  ['equal', { min: 1000, max: 2000 }],
])('jitter %s', (jitter, range) => {
  it(`gives level 2 a wait of ${JSON.stringify(range)} where the mechanism allows it`, () => {
    const plan = planOf(changed(['spec', 'jitter'], jitter));
    expect(plan.targets.kafka?.levels[1]?.waitMs).toEqual(range);
    expect(plan.targets.serviceBus?.levels[1]?.waitMs).toEqual(range);
    expect(plan.targets.rabbitmq?.levels[1]?.waitMs).toEqual(range); // delivery-time mode
  });
});

describe('RabbitMQ modes', () => {
  it('ttl-queues: one wait queue per level, with a fixed wait', () => {
    const plan = planOf(
      withChanges([
        [['spec', 'targets', 'rabbitmq', 'mode'], 'ttl-queues'],
        [['spec', 'jitter'], 'none'],
      ]),
    );
    const rabbit = plan.targets.rabbitmq;
    expect(rabbit?.levels.map((level) => level.destination)).toEqual([
      'billing.order-placed.retry.1',
      'billing.order-placed.retry.2',
      'billing.order-placed.retry.3',
    ]);
    expect(rabbit?.retryExchange).toBe('billing.order-placed.retry');
    expect(rabbit?.jitterApplied).toBe(false);
  });

  it('quorum-delayed-retry: no wait queues, delayed-retry settings on the main queue, linear waits', () => {
    const plan = planOf(changed(['spec', 'targets', 'rabbitmq', 'mode'], 'quorum-delayed-retry'));
    const rabbit = plan.targets.rabbitmq;
    expect(rabbit?.queues.map((queue) => queue.role)).toEqual(['main', 'dead-letter']);
    expect(rabbit?.levels.map((level) => level.waitMs.max)).toEqual([1000, 2000, 3000]);
    expect(rabbit?.policies[0]?.definition).toMatchObject({
      'delayed-retry-type': 'failed',
      'delayed-retry-min': 1000,
      'delayed-retry-max': 3000,
      'delivery-limit': 3,
    });
    expect(rabbit?.retryExchange).toBe('');
  });

  it('quorum-delayed-retry with one attempt: no delayed-retry settings (the broker refuses a min or max of 0)', () => {
    const plan = planOf(
      withChanges([
        [['spec', 'targets', 'rabbitmq', 'mode'], 'quorum-delayed-retry'],
        [['spec', 'maxAttempts'], 1],
      ]),
    );
    const definition = plan.targets.rabbitmq?.policies[0]?.definition ?? {};
    expect(Object.keys(definition).filter((key) => key.startsWith('delayed-retry'))).toEqual([]);
    expect(plan.targets.rabbitmq?.levels).toEqual([]);
    expect(definition['delivery-limit']).toBe(1);
  });

  it('quorum-delayed-retry: min and max are the first and last of the broker’s own line, min × n capped', () => {
    const plan = planOf(
      withChanges([
        [['spec', 'targets', 'rabbitmq', 'mode'], 'quorum-delayed-retry'],
        [['spec', 'maxAttempts'], 5],
        [['spec', 'backoff'], { type: 'list', delays: ['2s', '3s', '5s', '5s'] }],
      ]),
    );
    const rabbit = plan.targets.rabbitmq;
    const definition = rabbit?.policies[0]?.definition ?? {};
    const min = Number(definition['delayed-retry-min']);
    const max = Number(definition['delayed-retry-max']);
    // What RabbitMQ 4.3 waits after the n-th failed delivery: min(min × n, max).
    const broker = [1, 2, 3, 4].map((n) => Math.min(min * n, max));
    expect(rabbit?.levels.map((level) => level.waitMs)).toEqual(broker.map((ms) => ({ min: ms, max: ms })));
    expect(broker).toEqual([2000, 4000, 5000, 5000]);
  });

  it('delivery-time: no wait queues, copies go back to the main queue with jitter', () => {
    const plan = planOf(cleanPolicy());
    const rabbit = plan.targets.rabbitmq;
    expect(rabbit?.queues.map((queue) => queue.role)).toEqual(['main', 'dead-letter']);
    expect(rabbit?.levels.every((level) => level.destination === 'billing.order-placed')).toBe(true);
    expect(rabbit?.bindings.find((b) => b.source === rabbit.retryExchange)?.destination).toBe(
      'billing.order-placed',
    );
  });

  it('bounds wait queues by max-length, or not at all when asked', () => {
    const bounded = planOf(
      withChanges([
        [['spec', 'targets', 'rabbitmq', 'mode'], 'ttl-queues'],
        [['spec', 'targets', 'rabbitmq', 'waitQueueMaxLength'], 500],
      ]),
    );
    expect(bounded.targets.rabbitmq?.queues[1]?.effective['x-max-length']).toBe(500);
  });
});

describe('targets', () => {
  it('plans only the targets a policy names', () => {
    const plan = planOf(
      withChanges([
        [['spec', 'targets', 'kafka'], undefined],
        [['spec', 'targets', 'serviceBus'], undefined],
      ]),
    );
    expect(Object.keys(plan.targets)).toEqual(['rabbitmq']);
  });

  it('uses a Service Bus queue itself for scheduled copies unless duplicate detection is on', () => {
    expect(planOf(cleanPolicy()).targets.serviceBus?.scheduleTo).toBe('billing-orders');
    const detected = planOf(changed(['spec', 'targets', 'serviceBus', 'duplicateDetection'], '10m'));
    expect(detected.targets.serviceBus?.scheduleTo).toBe('billing.order-placed.retry');
    expect(
      detected.targets.serviceBus?.entities.map((e) => [e.role, e.properties.requiresDuplicateDetection]),
    ).toEqual([
      ['main', true],
      ['retry', false],
    ]);
  });
});

describe('derivePlan', () => {
  it('refuses a policy with errors, listing every error', () => {
    const policy = parsePolicy(cleanPolicy());
    const broken = { ...policy, messageTtlMs: 1000, deadlineMs: 1000 };
    expect(() => derivePlan(broken)).toThrow(PolicyError);
    try {
      derivePlan(broken);
    } catch (error) {
      expect((error as PolicyError).issues.map((found) => found.code).sort()).toEqual([
        'retry-window-exceeds-deadline',
        'retry-window-exceeds-ttl',
      ]);
    }
  });

  it('returns plain JSON with sorted keys', () => {
    const plan = planOf(cleanPolicy());
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
    expect(Object.keys(plan)).toEqual([...Object.keys(plan)].sort());
    expect(Object.keys(plan.targets.rabbitmq ?? {})).toEqual(
      [...Object.keys(plan.targets.rabbitmq ?? {})].sort(),
    );
  });
});
