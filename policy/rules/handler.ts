import { type Issue, issue } from '../issues';
import type { Rule } from './context';

/** The client errors that are worth repeating: 408 Request Timeout, 429 Too Many Requests. */
const RETRYABLE_4XX = [408, 429];

const idempotency: Rule = ({ policy }) => {
  const retries = policy.maxAttempts > 1 || policy.immediate.retries > 0;
  if (policy.idempotency.idempotent || !retries) return [];
  return [
    issue(
      'non-idempotent-retry',
      ['spec', 'idempotency', 'idempotent'],
      'a retry delivers the message again: make the handler idempotent (and say so), or set maxAttempts: 1 and immediate.retries: 0',
    ),
  ];
};

const classification: Rule = ({ policy }) => {
  const out: Issue[] = [];
  const { classify } = policy;
  if (classify.unknown === 'transient') {
    out.push(
      issue(
        'unknown-errors-transient',
        ['spec', 'classify', 'unknown'],
        'errors no rule knows are retried: a permanent failure circles through every level before it is dead-lettered',
      ),
    );
  }
  // 4xx means the request itself is wrong; only 408 (timeout) and 429 (too many requests) say
  // that the same request may succeed later.
  const statuses = classify.transient.httpStatuses;
  const clientErrors = statuses.filter(
    (status) =>
      status >= 400 &&
      status <= 499 &&
      !RETRYABLE_4XX.includes(status) &&
      !classify.permanent.httpStatuses.includes(status),
  );
  const first = clientErrors[0];
  if (first !== undefined) {
    out.push(
      issue(
        'transient-client-error',
        ['spec', 'classify', 'transient', 'httpStatuses', statuses.indexOf(first)],
        `HTTP ${clientErrors.join(', ')} ${clientErrors.length === 1 ? 'is' : 'are'} listed as transient, but a 4xx other than 408 and 429 says the request itself is wrong: every retry fails the same way`,
      ),
    );
  }
  const hasTransientRule =
    classify.presets.length > 0 ||
    classify.transient.errorNames.length > 0 ||
    classify.transient.errorCodes.length > 0 ||
    classify.transient.httpStatuses.length > 0;
  if (policy.maxAttempts > 1 && !hasTransientRule && classify.unknown === 'permanent') {
    out.push(
      issue(
        'no-transient-rules',
        ['spec', 'classify'],
        `maxAttempts is ${policy.maxAttempts} but no error is transient, so nothing is ever retried; add presets or transient rules`,
      ),
    );
  }
  return out;
};

const ordering: Rule = ({ policy }) => {
  // Nothing overtakes a message that is never retried later (maxAttempts 1).
  if (policy.ordering !== 'per-key' || policy.maxAttempts === 1) return [];
  const out: Issue[] = [];
  const { rabbitmq, kafka, serviceBus } = policy.targets;
  if (kafka && kafka.ordering === 'none') {
    out.push(
      issue(
        'ordering-not-kept',
        ['spec', 'targets', 'kafka', 'ordering'],
        'ordering is per-key, but retry topics without "park-key" let later records of a key overtake a retried one',
      ),
    );
  }
  const unordered: Array<[string, unknown]> = [
    ['rabbitmq', rabbitmq],
    ['serviceBus', serviceBus],
  ];
  for (const [name, target] of unordered) {
    if (!target) continue;
    out.push(
      issue(
        'ordering-not-kept',
        ['spec', 'targets', name],
        `ordering is per-key, but a delayed retry on ${name} lets later messages overtake the retried one; there is no mode that keeps key order here`,
      ),
    );
  }
  return out satisfies Issue[];
};

export const handlerRules: Rule[] = [idempotency, classification, ordering];
