import { BASE_VERSION, MODE_MIN_VERSION, parseVersion, versionAtLeast } from '../broker-version';
import { formatDuration as fmt } from '../duration';
import { type Issue, issue } from '../issues';
import type { Rule } from './context';
import { rabbitmqSettings } from './rabbitmq-settings';

/** The schema already checked the shape ("3.10" or "3.10.8"). */
function atLeast(text: string, minimum: readonly number[]): boolean {
  return versionAtLeast(parseVersion(text) ?? [], minimum);
}

/** Azure Service Bus refuses a lock duration above five minutes. */
export const SERVICE_BUS_MAX_LOCK_MS = 5 * 60_000;

const rabbitmq: Rule = ({ policy }) => {
  const target = policy.targets.rabbitmq;
  if (!target) return [];
  const out: Issue[] = [];
  const at = (key: string) => ['spec', 'targets', 'rabbitmq', key];
  if (!atLeast(target.brokerVersion, BASE_VERSION)) {
    out.push(
      issue(
        'broker-version-unsupported',
        at('brokerVersion'),
        `expected RabbitMQ 3.10 or later (quorum queues with at-least-once dead-lettering), got ${target.brokerVersion}`,
      ),
    );
  } else if (!atLeast(target.brokerVersion, MODE_MIN_VERSION[target.mode])) {
    out.push(
      issue(
        'mode-needs-newer-broker',
        at('mode'),
        `mode "${target.mode}" needs RabbitMQ ${MODE_MIN_VERSION[target.mode].join('.')} or later, but brokerVersion is ${target.brokerVersion}: an older broker would retry without waiting or refuse the topology`,
      ),
    );
  }
  if (target.deadLetterStrategy === 'at-least-once' && target.overflow !== 'reject-publish') {
    out.push(
      issue(
        'at-least-once-needs-reject-publish',
        at('overflow'),
        `at-least-once dead-lettering needs overflow "reject-publish"; with "${target.overflow}" the broker silently falls back to at-most-once`,
      ),
    );
  }
  if (target.deadLetterStrategy === 'at-most-once') {
    out.push(
      issue(
        'at-most-once-dead-lettering',
        at('deadLetterStrategy'),
        'a message moving from a wait queue back to the main queue, or to the dead-letter queue, can be lost',
      ),
    );
  }
  if (target.mode === 'ttl-queues' && target.waitQueueMaxLength === 'unbounded' && policy.maxAttempts > 1) {
    out.push(
      issue(
        'unbounded-wait-queue',
        at('waitQueueMaxLength'),
        'during a long outage unbounded wait queues can fill the disk and raise the broker’s disk alarm',
      ),
    );
  }
  const retries = policy.maxAttempts - 1;
  if (
    target.mode === 'quorum-delayed-retry' &&
    target.deliveryLimit !== undefined &&
    target.deliveryLimit < retries
  ) {
    out.push(
      issue(
        'delivery-limit-below-attempts',
        at('deliveryLimit'),
        `in quorum-delayed-retry mode each retry uses one delivery: expected a delivery limit of at least ${retries}, got ${target.deliveryLimit}`,
      ),
    );
  }
  return out;
};

const kafka: Rule = ({ policy, delays }) => {
  const target = policy.targets.kafka;
  if (!target) return [];
  const out: Issue[] = [];
  const longest = Math.max(0, ...delays);
  // A record must outlive its wait and the catch-up after an outage, or it is deleted unread.
  if (target.retryRetentionMs < 2 * longest) {
    out.push(
      issue(
        'retention-below-delay',
        ['spec', 'targets', 'kafka', 'retryRetention'],
        `expected retry topic retention of at least twice the longest wait (${fmt(2 * longest)}), got ${fmt(target.retryRetentionMs)}`,
      ),
    );
  }
  if (target.minInSyncReplicas > target.replicationFactor) {
    out.push(
      issue(
        'min-insync-above-replication',
        ['spec', 'targets', 'kafka', 'minInSyncReplicas'],
        `expected min.insync.replicas <= replicationFactor ${target.replicationFactor}, got ${target.minInSyncReplicas}: every produce would fail`,
      ),
    );
  }
  return out;
};

const serviceBus: Rule = ({ policy }) => {
  const target = policy.targets.serviceBus;
  if (!target || target.lockDurationMs <= SERVICE_BUS_MAX_LOCK_MS) return [];
  return [
    issue(
      'lock-duration-over-max',
      ['spec', 'targets', 'serviceBus', 'lockDuration'],
      `expected a lock duration of at most 5m (Azure's limit), got ${fmt(target.lockDurationMs)}`,
    ),
  ];
};

/** A policy with no target provisions nothing and gives the runtime nothing to run. */
const someTarget: Rule = ({ policy }) =>
  Object.values(policy.targets).some((target) => target !== undefined)
    ? []
    : [
        issue(
          'no-targets',
          ['spec', 'targets'],
          'no broker target: nothing is provisioned and no consumer can run this policy; add rabbitmq, kafka or serviceBus',
        ),
      ];

export const brokerRules: Rule[] = [someTarget, rabbitmq, rabbitmqSettings, kafka, serviceBus];
