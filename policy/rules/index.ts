import type { Issue } from '../issues';
import type { Policy } from '../types';
import { applyAcknowledgements } from './acknowledge';
import { brokerRules } from './brokers';
import { ruleContext } from './context';
import { handlerRules } from './handler';
import { nameRules } from './names';
import { replicationRules } from './replication';
import { timingRules } from './timing';

const ALL_RULES = [...timingRules, ...handlerRules, ...brokerRules, ...replicationRules, ...nameRules];

/** Every semantic rule over a policy that already passed the schema. Reports all findings at once. */
export function checkRules(policy: Policy): Issue[] {
  const context = ruleContext(policy);
  const findings = applyAcknowledgements(
    policy,
    ALL_RULES.flatMap((rule) => rule(context)),
  );
  return findings.map((found) => ({ ...found, policy: policy.name }));
}
