import { hasErrors, PolicyError } from '../issues';
import { checkRules } from '../rules';
import type { Policy } from '../types';
import { planKafka } from './kafka';
import { planRabbitMq } from './rabbitmq';
import { planServiceBus } from './servicebus';
import { sortKeys } from './sort-keys';
import { amplification, policyDelays } from './timeline';
import { PLAN_VERSION, type RetryPlan } from './types';

const PRESET_RULES = {
  'http-transient': { errorNames: [], errorCodes: [], httpStatuses: [408, 429, ...range(500, 599)] },
  'network-transient': {
    errorNames: ['TimeoutError'],
    errorCodes: ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN'],
    httpStatuses: [],
  },
} as const;

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

function unique<T>(values: Iterable<T>): T[] {
  return [...new Set(values)];
}

/** Presets expanded into plain lists, so the runtime matches without knowing preset names. */
function classification(policy: Policy): RetryPlan['classification'] {
  const { classify } = policy;
  const presets = classify.presets.map((name) => PRESET_RULES[name]);
  const sortNumbers = (values: number[]) => unique(values).sort((a, b) => a - b);
  return {
    transient: {
      errorNames: unique([...classify.transient.errorNames, ...presets.flatMap((p) => p.errorNames)]).sort(),
      errorCodes: unique([...classify.transient.errorCodes, ...presets.flatMap((p) => p.errorCodes)]).sort(),
      httpStatuses: sortNumbers([
        ...classify.transient.httpStatuses,
        ...presets.flatMap((p) => p.httpStatuses),
      ]),
    },
    permanent: {
      errorNames: unique(classify.permanent.errorNames).sort(),
      errorCodes: unique(classify.permanent.errorCodes).sort(),
      httpStatuses: sortNumbers(classify.permanent.httpStatuses),
    },
    unknown: classify.unknown,
  };
}

/**
 * Policy → plan. Pure and deterministic: no I/O, no clock, no randomness; sorted keys.
 * Throws PolicyError (with every issue) when the policy has errors; warnings ride along in
 * `findings`.
 */
export function derivePlan(policy: Policy): RetryPlan {
  const findings = checkRules(policy);
  if (hasErrors(findings)) throw new PolicyError(findings.filter((found) => found.severity === 'error'));

  const delays = policyDelays(policy);
  const { rabbitmq, kafka, serviceBus } = policy.targets;
  const plan: RetryPlan = {
    planVersion: PLAN_VERSION,
    policy: policy.name,
    ...(policy.environment === undefined ? {} : { environment: policy.environment }),
    consumer: policy.consumer,
    maxAttempts: policy.maxAttempts,
    classification: classification(policy),
    idempotency: policy.idempotency,
    ordering: policy.ordering,
    amplification: amplification(policy),
    delaysMs: delays,
    targets: {
      ...(rabbitmq ? { rabbitmq: planRabbitMq(policy, rabbitmq, delays) } : {}),
      ...(kafka ? { kafka: planKafka(policy, kafka, delays) } : {}),
      ...(serviceBus ? { serviceBus: planServiceBus(policy, serviceBus, delays) } : {}),
    },
    findings,
  };
  return sortKeys(plan);
}
