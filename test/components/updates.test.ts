import { describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../policy';
import {
  billingDocument,
  canonical,
  planOf,
  type Recording,
  type Registration,
  record,
  TYPES,
  withValues,
} from './harness';

/**
 * The hard requirement: a policy edit followed by `pulumi up` never deletes a queue that can hold
 * messages. The bridged rabbitmq.Queue and Binding replace (queue: delete first) on ANY input
 * change, so each edit is built twice under mocks and the two registrations compared: queues
 * and bindings must be byte-identical with the same URN, and every changed resource must be one
 * the provider updates in place.
 */

type Changes = ReadonlyArray<[ReadonlyArray<string>, unknown]>;
const RABBIT = ['spec', 'targets', 'rabbitmq'];

const MODES: Record<string, Changes> = {
  'ttl-queues': [],
  'quorum-delayed-retry': [
    [[...RABBIT, 'mode'], 'quorum-delayed-retry'],
    [[...RABBIT, 'brokerVersion'], '4.3.0'],
  ],
  'delivery-time': [
    [[...RABBIT, 'mode'], 'delivery-time'],
    [[...RABBIT, 'brokerVersion'], '4.4.0'],
  ],
};

/** Each edit, and (for ttl-queues) the RabbitMQ children it may change, add or remove. */
const EDITS: Array<{
  edit: string;
  /** The one mode the edit applies to, when it is not every mode. */
  onlyIn?: string;
  changes: Changes;
  ttlQueues: { changed: string[]; added: string[]; removed: string[] };
}> = [
  {
    edit: 'a delay (initial 1s → 3s, cap 4s → 12s)',
    changes: [
      [['spec', 'backoff', 'initial'], '3s'],
      [['spec', 'backoff', 'max'], '12s'],
    ],
    ttlQueues: { changed: ['wait-1-policy', 'wait-2-policy', 'wait-3-policy'], added: [], removed: [] },
  },
  {
    edit: 'maxAttempts 4 → 3 (a level removed)',
    changes: [[['spec', 'maxAttempts'], 3]],
    ttlQueues: { changed: [], added: [], removed: ['wait-3', 'wait-3-policy', 'retry-exchange-to-wait-3'] },
  },
  {
    edit: 'maxAttempts 4 → 5 (a level added)',
    changes: [[['spec', 'maxAttempts'], 5]],
    ttlQueues: { changed: [], added: ['wait-4', 'wait-4-policy', 'retry-exchange-to-wait-4'], removed: [] },
  },
  {
    edit: 'wait queue max-length 100000 → 5000',
    // Only ttl-queues mode has wait queues.
    onlyIn: 'ttl-queues',
    changes: [[[...RABBIT, 'waitQueueMaxLength'], 5000]],
    ttlQueues: { changed: ['wait-1-policy', 'wait-2-policy', 'wait-3-policy'], added: [], removed: [] },
  },
  {
    edit: 'message TTL 1h → 2h',
    changes: [[['spec', 'messageTtl'], '2h']],
    ttlQueues: { changed: ['main-queue-policy'], added: [], removed: [] },
  },
  {
    edit: 'delivery limit 5 → 8',
    changes: [[[...RABBIT, 'deliveryLimit'], 8]],
    ttlQueues: { changed: ['main-queue-policy'], added: [], removed: [] },
  },
];

/** Resource types whose listed inputs force a replacement; any other input updates in place. */
const REPLACING_INPUTS: Record<string, string[] | 'all'> = {
  [TYPES.queue]: 'all',
  [TYPES.binding]: 'all',
  [TYPES.exchange]: 'all',
  [TYPES.permissions]: ['user', 'vhost'],
  [TYPES.user]: ['name'],
  [TYPES.policy]: ['name', 'vhost'],
  [TYPES.topic]: ['name', 'replicationFactor'],
  [TYPES.acl]: 'all',
  [TYPES.sbQueue]: [
    'queueName',
    'namespaceName',
    'resourceGroupName',
    'requiresSession',
    'requiresDuplicateDetection',
    'enablePartitioning',
  ],
  [TYPES.sbSubscription]: [
    'subscriptionName',
    'topicName',
    'namespaceName',
    'resourceGroupName',
    'requiresSession',
  ],
  [TYPES.sbQueueRule]: ['authorizationRuleName', 'queueName', 'namespaceName', 'resourceGroupName'],
};

/** Children that can hold messages. */
const HOLDS_MESSAGES = new Set<string>([TYPES.queue, TYPES.topic, TYPES.sbQueue, TYPES.sbSubscription]);

async function build(plan: RetryPlan): Promise<Map<string, Registration>> {
  const { RetryTopology } = await import('../../components');
  const recording: Recording = await record(() => {
    new RetryTopology('billing', {
      plan,
      rabbitmq: { consumerUser: { name: 'billing' } },
      kafka: { consumerPrincipal: 'User:billing' },
      serviceBus: { resourceGroupName: 'rg', namespaceName: 'ns', consumerRuleName: 'billing' },
    });
  });
  expect(recording.mockCalls.length, 'the mocks saw the resources').toBe(recording.registrations.length);
  return new Map(
    recording.registrations
      .filter((each) => each.custom)
      .map((each) => [each.name.replace(/^billing-/, ''), each]),
  );
}

function replaces(before: Registration, after: Registration): string[] {
  const forcing = REPLACING_INPUTS[before.type];
  if (!forcing) throw new Error(`no replacement rule for ${before.type}`);
  const keys =
    forcing === 'all' ? [...new Set([...Object.keys(before.inputs), ...Object.keys(after.inputs)])] : forcing;
  const grew =
    before.type === TYPES.topic && (after.inputs.partitions as number) < (before.inputs.partitions as number);
  return [
    ...keys.filter((key) => canonical(before.inputs[key]) !== canonical(after.inputs[key])),
    ...(grew ? ['partitions'] : []),
  ];
}

describe.each(Object.entries(MODES))('%s', (mode, modeChanges) => {
  it.each(EDITS.filter((edit) => (edit.onlyIn ?? mode) === mode))(
    '$edit: no message-holding entity is replaced or deleted',
    async ({ changes, ttlQueues }) => {
      const base = withValues(billingDocument(), modeChanges);
      const beforePlan = planOf(base);
      const afterPlan = planOf(withValues(base, changes));
      expect(canonical(afterPlan), 'the edit changes the plan').not.toBe(canonical(beforePlan));
      const before = await build(beforePlan);
      const after = await build(afterPlan);

      for (const key of ['main-queue', 'dlq']) {
        const [old, now] = [before.get(key), after.get(key)];
        expect(old && now, `${key} exists before and after`).toBeTruthy();
        expect(canonical(now?.inputs), `${key} inputs are byte-identical`).toBe(canonical(old?.inputs));
        expect(now?.urn, `${key} keeps its URN`).toBe(old?.urn);
      }

      const changed: string[] = [];
      for (const [key, old] of before) {
        const now = after.get(key);
        if (!now) continue;
        expect(now.urn).toBe(old.urn);
        expect(replaces(old, now), `${key} would be replaced`).toEqual([]);
        if (canonical(now.inputs) !== canonical(old.inputs)) changed.push(key);
      }
      const removed = [...before.keys()].filter((key) => !after.has(key));
      const added = [...after.keys()].filter((key) => !before.has(key));
      for (const key of removed) {
        const old = before.get(key) as Registration;
        // What the engine honours on removal is the option stored by the previous `pulumi up`.
        if (HOLDS_MESSAGES.has(old.type) || old.type === TYPES.policy) {
          expect(old.retainOnDelete, `removed ${key} stays on the broker`).toBe(true);
        }
      }

      if (mode === 'ttl-queues') {
        const rabbit = (keys: string[]) =>
          keys.filter((key) => (before.get(key) ?? after.get(key))?.type.startsWith('rabbitmq:')).sort();
        expect(rabbit(changed)).toEqual([...ttlQueues.changed].sort());
        expect(rabbit(added)).toEqual([...ttlQueues.added].sort());
        expect(rabbit(removed)).toEqual([...ttlQueues.removed].sort());
      }
    },
  );
});

it('a removed wait queue keeps returning messages: its retained policy still dead-letters to the main queue', async () => {
  const before = await build(planOf(billingDocument()));
  const after = await build(planOf(withValues(billingDocument(), [[['spec', 'maxAttempts'], 3]])));
  expect(after.has('wait-3')).toBe(false);
  const policy = before.get('wait-3-policy') as Registration;
  expect(policy.retainOnDelete).toBe(true);
  const definition = (policy.inputs.policy as { definition: Record<string, string> }).definition;
  expect(definition['dead-letter-exchange']).toBe('');
  expect(definition['dead-letter-routing-key']).toBe('billing.order-placed');
  expect(Number(definition['message-ttl'])).toBeGreaterThan(0);
});

it('quorum replicas 3 → 5: queues differ only in argumentsJson, which they ignore on update, so none is replaced', async () => {
  const before = await build(planOf(billingDocument()));
  const after = await build(planOf(withValues(billingDocument(), [[[...RABBIT, 'quorumReplicas'], 5]])));
  expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  const withoutArguments = (registration: Registration) => ({
    ...registration.inputs,
    settings: { ...(registration.inputs.settings as object), argumentsJson: undefined },
  });
  let queues = 0;
  for (const [key, old] of before) {
    const now = after.get(key) as Registration;
    expect(now.urn).toBe(old.urn);
    if (old.type !== TYPES.queue) {
      expect(canonical(now.inputs), `${key} is unchanged`).toBe(canonical(old.inputs));
      continue;
    }
    queues++;
    expect(canonical(withoutArguments(now)), `${key} changes only its arguments`).toBe(
      canonical(withoutArguments(old)),
    );
    const argumentsJson = (now.inputs.settings as { argumentsJson: string }).argumentsJson;
    expect(JSON.parse(argumentsJson)['x-quorum-initial-group-size']).toBe(5);
    expect(now.ignoreChanges, `${key}: the engine keeps the old arguments`).toEqual([
      'settings.argumentsJson',
    ]);
  }
  expect(queues).toBe(5);
});
