import type { Issue } from '../issues';
import { RefusedPart } from '../parts';
import type { Policy } from '../types';
import { applyAcknowledgements } from './acknowledge';
import { brokerRules } from './brokers';
import { ruleContext } from './context';
import { handlerRules } from './handler';
import { nameRules } from './names';
import { replicationRules } from './replication';
import { timingRules } from './timing';

const ALL_RULES = [...timingRules, ...handlerRules, ...brokerRules, ...replicationRules, ...nameRules];

/**
 * What `read` returns, or undefined when it read a part of the policy the schema refused (a rule
 * then has nothing to say: its answer depends on a value nobody has written yet). Any other
 * exception is a bug and is thrown.
 */
function readable<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (error) {
    if (error instanceof RefusedPart) return undefined;
    throw error;
  }
}

/**
 * Every semantic rule over a policy. Reports all findings at once. `partial`: the policy has
 * parts the schema refused (parts.ts); each rule that can run on the rest still runs.
 */
export function checkRules(policy: Policy, partial = false): Issue[] {
  const context = ruleContext(policy);
  const raw = ALL_RULES.flatMap((rule) => readable(() => rule(context)) ?? []);
  // With parts refused, a skipped rule may be the one an acknowledgement is for: say nothing
  // about unused acknowledgements until the policy is whole. A refused list acknowledges nothing.
  const findings =
    readable(() => policy.acknowledge) === undefined ? raw : applyAcknowledgements(policy, raw, !partial);
  const name = readable(() => policy.name);
  return findings.map((found) => (name === undefined ? found : { ...found, policy: name }));
}
