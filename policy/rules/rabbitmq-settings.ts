import { type Issue, type IssuePath, issue } from '../issues';
import { rabbitQueueDefinitions } from '../plan/rabbitmq';
import type { Rule } from './context';

/**
 * What RabbitMQ's policy validators accept for each setting the plan writes, so `validate`
 * refuses what the broker would refuse at deploy (HTTP 400 from the management API, a failed
 * `pulumi up`). Transcribed from the broker's own validators (rabbit_policies.erl and, for the
 * delayed-retry keys, rabbit_quorum_queue.erl, 4.3.x) and checked against 3.10.8, 4.0.5 and
 * 4.3.6 by test/integration/rabbitmq/policy-settings.test.ts. Which keys a version knows at all
 * is the mode-needs-newer-broker rule's business.
 */

type Value = string | number;

interface Accepts {
  /** What the broker expects, in the words of the finding. */
  expected: string;
  test: (value: Value) => boolean;
}

const integerAtLeast = (minimum: number, expected: string): Accepts => ({
  expected,
  test: (value) => typeof value === 'number' && Number.isInteger(value) && value >= minimum,
});
const text: Accepts = { expected: 'text', test: (value) => typeof value === 'string' };
const oneOf = (...values: string[]): Accepts => ({
  expected: `one of ${values.join(', ')}`,
  test: (value) => typeof value === 'string' && values.includes(value),
});

export const RABBITMQ_POLICY_SETTINGS: Record<string, Accepts> = {
  'message-ttl': integerAtLeast(0, 'a whole number of milliseconds, 0 or more'),
  expires: integerAtLeast(1, 'a whole number of milliseconds, 1 or more'),
  'max-length': integerAtLeast(0, 'a whole number, 0 or more'),
  'max-length-bytes': integerAtLeast(0, 'a whole number, 0 or more'),
  overflow: oneOf('drop-head', 'reject-publish', 'reject-publish-dlx'),
  'dead-letter-exchange': text,
  'dead-letter-routing-key': text,
  'dead-letter-strategy': oneOf('at-most-once', 'at-least-once'),
  'delivery-limit': integerAtLeast(Number.MIN_SAFE_INTEGER, 'a whole number'),
  'delayed-retry-type': oneOf('all', 'failed', 'returned', 'disabled'),
  'delayed-retry-min': integerAtLeast(1, 'a whole number of milliseconds, 1 or more'),
  'delayed-retry-max': integerAtLeast(1, 'a whole number of milliseconds, 1 or more'),
};

export interface RefusedSetting {
  key: string;
  value: Value | undefined;
  expected: string;
}

/** Every setting of one policy definition the broker would refuse; [] when it takes them all. */
export function refusedSettings(definition: Readonly<Record<string, Value>>): RefusedSetting[] {
  const out: RefusedSetting[] = [];
  for (const [key, value] of Object.entries(definition)) {
    const accepts = RABBITMQ_POLICY_SETTINGS[key];
    if (!accepts) out.push({ key, value, expected: 'a setting RabbitMQ knows' });
    else if (!accepts.test(value)) out.push({ key, value, expected: accepts.expected });
  }
  // Checked across keys, after each key on its own (the broker's order too).
  if (out.length > 0) return out;
  const type = definition['delayed-retry-type'];
  const min = definition['delayed-retry-min'];
  const max = definition['delayed-retry-max'];
  if (type !== undefined && type !== 'disabled' && min === undefined) {
    out.push({
      key: 'delayed-retry-min',
      value: undefined,
      expected: `a value when delayed-retry-type is ${type}`,
    });
  } else if (typeof min === 'number' && typeof max === 'number' && max < min) {
    out.push({ key: 'delayed-retry-max', value: max, expected: `at least delayed-retry-min (${min})` });
  }
  return out;
}

/** The policy field each setting comes from, so a finding points at what to change. */
const SOURCE: Record<string, IssuePath> = {
  'message-ttl': ['spec', 'messageTtl'],
  'max-length': ['spec', 'targets', 'rabbitmq', 'waitQueueMaxLength'],
  overflow: ['spec', 'targets', 'rabbitmq', 'overflow'],
  'dead-letter-strategy': ['spec', 'targets', 'rabbitmq', 'deadLetterStrategy'],
  'delivery-limit': ['spec', 'targets', 'rabbitmq', 'deliveryLimit'],
  'delayed-retry-type': ['spec', 'targets', 'rabbitmq', 'mode'],
  'delayed-retry-min': ['spec', 'backoff'],
  'delayed-retry-max': ['spec', 'backoff'],
};

export function refusedSettingIssues(
  policies: ReadonlyArray<{ name: string; definition: Readonly<Record<string, Value>> }>,
): Issue[] {
  return policies.flatMap((policy) =>
    refusedSettings(policy.definition).map((refused) =>
      issue(
        'broker-refuses-setting',
        SOURCE[refused.key] ?? ['spec', 'targets', 'rabbitmq'],
        `RabbitMQ would refuse policy "${policy.name}": ${refused.key} ${
          refused.value === undefined ? 'missing' : JSON.stringify(refused.value)
        }, expected ${refused.expected}`,
      ),
    ),
  );
}

/** The plan's RabbitMQ policies, checked as the broker will check them at deploy. */
export const rabbitmqSettings: Rule = ({ policy, delays }) => {
  const target = policy.targets.rabbitmq;
  if (!target) return [];
  return refusedSettingIssues(
    rabbitQueueDefinitions(policy, target, delays).map((each) => ({
      name: each.policy,
      definition: each.definition,
    })),
  );
};
