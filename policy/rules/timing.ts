import { formatDuration as fmt } from '../duration';
import { type Issue, issue } from '../issues';
import { amplification, linearDelays, MAX_LEVEL_DELAY_MS } from '../plan/timeline';
import { IN_MEMORY_SHARE, IN_MEMORY_WARN_MS, type Rule } from './context';

const backoff: Rule = ({ policy, delays }) => {
  const out: Issue[] = [];
  const { backoff } = policy;
  const wanted = policy.maxAttempts - 1;
  if (backoff.type === 'list' && backoff.delaysMs.length !== wanted) {
    out.push(
      issue(
        'delays-count-mismatch',
        ['spec', 'backoff', 'delays'],
        `expected ${wanted} delay(s) (maxAttempts ${policy.maxAttempts} - 1), got ${backoff.delaysMs.length}`,
      ),
    );
  }
  if (backoff.type === 'exponential' && backoff.maxMs !== undefined && backoff.maxMs < backoff.initialMs) {
    out.push(
      issue(
        'backoff-max-below-initial',
        ['spec', 'backoff', 'max'],
        `expected a cap of at least the initial ${fmt(backoff.initialMs)}, got ${fmt(backoff.maxMs)}`,
      ),
    );
  }
  const longest = Math.max(0, ...delays);
  if (longest > MAX_LEVEL_DELAY_MS) {
    out.push(
      issue(
        'out-of-range',
        ['spec', 'backoff'],
        `expected every wait <= ${fmt(MAX_LEVEL_DELAY_MS)} (brokers hold delays in 32 bits), got ${fmt(longest)}; set backoff.max`,
      ),
    );
  }
  return out;
};

const window: Rule = ({ policy, windowMaxMs }) => {
  const out: Issue[] = [];
  if (policy.messageTtlMs !== undefined && windowMaxMs > policy.messageTtlMs) {
    out.push(
      issue(
        'retry-window-exceeds-ttl',
        ['spec', 'messageTtl'],
        `the retry window (up to ${fmt(windowMaxMs)}) is longer than the message TTL ${fmt(policy.messageTtlMs)}: messages would expire while they wait`,
      ),
    );
  }
  if (policy.deadlineMs !== undefined && windowMaxMs > policy.deadlineMs) {
    out.push(
      issue(
        'retry-window-exceeds-deadline',
        ['spec', 'deadline'],
        `the retry window (up to ${fmt(windowMaxMs)}) is longer than the deadline ${fmt(policy.deadlineMs)}`,
      ),
    );
  }
  return out;
};

const amplify: Rule = ({ policy }) => {
  const calls = amplification(policy);
  if (calls.total <= calls.budget) return [];
  const inner = policy.innerLayers.map((layer) => `${layer.attempts} (${layer.name})`).join(' × ');
  const product = [
    `${calls.deliveries} deliveries`,
    `${calls.perDelivery} per delivery`,
    ...(inner ? [inner] : []),
  ].join(' × ');
  return [
    issue(
      'amplification-over-budget',
      ['spec', 'maxAttempts'],
      `one message can cause ${calls.total} calls (${product}), over the budget of ${calls.budget}`,
    ),
  ];
};

const inMemory: Rule = ({ policy, inMemory }) => {
  const out: Issue[] = [];
  const spent = inMemory.max;
  if (spent === 0) return out;
  const path = ['spec', 'immediate'];
  if (spent > IN_MEMORY_WARN_MS) {
    out.push(
      issue(
        'immediate-retries-long',
        path,
        `immediate retries wait up to ${fmt(spent)} in memory per delivery; keep them to a few seconds and let the broker hold longer waits`,
      ),
    );
  }
  const check = (limitMs: number, what: string, code: Issue['code']) => {
    if (spent > limitMs * IN_MEMORY_SHARE) {
      out.push(
        issue(
          code,
          path,
          `immediate retries wait up to ${fmt(spent)}, more than half of ${what} (${fmt(limitMs)}), which the handler runs also need`,
        ),
      );
    }
  };
  const { rabbitmq, kafka, serviceBus } = policy.targets;
  if (serviceBus) {
    const limit =
      serviceBus.lockRenewalMs > 0
        ? Math.max(serviceBus.lockRenewalMs, serviceBus.lockDurationMs)
        : serviceBus.lockDurationMs;
    check(
      limit,
      serviceBus.lockRenewalMs > 0 ? 'the lock with renewal' : 'the lock duration',
      'in-memory-exceeds-lock',
    );
  }
  if (kafka) check(kafka.maxPollIntervalMs, 'max.poll.interval.ms', 'in-memory-exceeds-poll-interval');
  if (rabbitmq)
    check(rabbitmq.consumerTimeoutMs, 'the consumer timeout', 'in-memory-exceeds-consumer-timeout');
  return out;
};

const jitter: Rule = (context) => {
  const { policy } = context;
  const out: Issue[] = [];
  // No delayed retry, nothing to spread. Asked of maxAttempts rather than of the delays, so a
  // broken backoff does not hide no-jitter.
  if (policy.maxAttempts === 1) return out;
  if (policy.jitter === 'none') {
    out.push(
      issue(
        'no-jitter',
        ['spec', 'jitter'],
        'every message that failed together comes back together when the dependency recovers; use "full" or "equal"',
      ),
    );
  }
  const rabbit = policy.targets.rabbitmq;
  if (rabbit && policy.jitter !== 'none' && rabbit.mode !== 'delivery-time') {
    out.push(
      issue(
        'jitter-not-applied',
        ['spec', 'targets', 'rabbitmq', 'mode'],
        `mode "${rabbit.mode}" gives every message of a level the same wait: jitter "${policy.jitter}" cannot apply on RabbitMQ`,
      ),
    );
  }
  if (rabbit?.mode === 'quorum-delayed-retry') {
    const { delays } = context;
    const linear = linearDelays(delays);
    if (linear.some((delay, index) => delay !== delays[index])) {
      out.push(
        issue(
          'delayed-retry-linear',
          ['spec', 'targets', 'rabbitmq', 'mode'],
          `the broker's delayed retry is linear: waits ${linear.map(fmt).join(', ')} instead of ${delays.map(fmt).join(', ')}`,
        ),
      );
    }
  }
  return out;
};

export const timingRules: Rule[] = [backoff, window, amplify, inMemory, jitter];
