import { type Issue, issue } from '../issues';
import type { Policy } from '../types';

/**
 * A reviewed way out of a warning that does not apply to one consumer (jitter on RabbitMQ below
 * 4.4, a 409 that really is transient): `spec.acknowledge` names the code and the reason. That
 * warning becomes a note carrying the reason, shown wherever the finding is (validate, plan,
 * diff), so `--strict` can pass without hiding what was accepted. An acknowledgement whose
 * warning no longer fires is a warning itself, so a stale one does not outlive its reason
 * (unless `reportUnused` is false: on a policy with refused parts, the rule it is for may not
 * have run).
 */
export function applyAcknowledgements(
  policy: Policy,
  findings: readonly Issue[],
  reportUnused = true,
): Issue[] {
  const used = new Set<number>();
  const out = findings.map((found) => {
    if (found.severity !== 'warning') return found;
    const index = policy.acknowledge.findIndex((each) => each.code === found.code);
    const acknowledged = policy.acknowledge[index];
    if (!acknowledged) return found;
    used.add(index);
    return { ...found, severity: 'note' as const, acknowledged: acknowledged.reason };
  });
  policy.acknowledge.forEach((each, index) => {
    if (used.has(index) || !reportUnused) return;
    const twice = policy.acknowledge.findIndex((other) => other.code === each.code) !== index;
    // A warning code that fired as an error (acks-below-all on a policy marked for production):
    // it does fire, and an acknowledgement accepts warnings only.
    const asError = findings.some((found) => found.code === each.code && found.severity === 'error');
    out.push(
      issue(
        'acknowledgement-unused',
        ['spec', 'acknowledge', index, 'code'],
        twice
          ? `"${each.code}" is acknowledged twice; keep one`
          : asError
            ? `"${each.code}" is an error on ${policy.environment === 'production' ? 'a policy marked for production' : 'this policy'}, and only warnings can be acknowledged: fix what it reports (the acknowledgement changes nothing here)`
            : `"${each.code}" does not fire for this policy: remove the acknowledgement (the reason it gave no longer applies)`,
      ),
    );
  });
  return out;
}
