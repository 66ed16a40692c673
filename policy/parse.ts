import type { PolicyInput } from './input';
import { hasErrors, PolicyError } from './issues';
import { checkDocument } from './load';
import type { Policy } from './types';

/** The TypeScript object API: the same schema and rules as a YAML file. Throws PolicyError. */
export function parsePolicy(input: PolicyInput): Policy {
  const { policy, issues } = checkDocument(input);
  if (!policy || hasErrors(issues))
    throw new PolicyError(issues.filter((found) => found.severity === 'error'));
  return policy;
}
