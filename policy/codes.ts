/**
 * Every finding has a stable code. Tests and tools match on the code, never on message text.
 * Each code has a page in docs/codes/<code>.md: what goes wrong without the rule, and the fix.
 */

export const ISSUE_CODES = {
  // The inputs and the file.
  'no-policy-files': 'error',
  'not-a-policy': 'note',
  'file-unreadable': 'error',
  'file-too-large': 'error',
  'invalid-encoding': 'error',
  'yaml-syntax': 'error',
  'unsupported-tag': 'error',
  'no-policy': 'error',
  required: 'error',
  'unknown-key': 'error',
  'invalid-type': 'error',
  'invalid-value': 'error',
  'invalid-duration': 'error',
  'invalid-format': 'error',
  'out-of-range': 'error',
  'duplicate-policy-name': 'error',
  // Backoff and timing.
  'delays-count-mismatch': 'error',
  'backoff-max-below-initial': 'error',
  'retry-window-exceeds-ttl': 'error',
  'retry-window-exceeds-deadline': 'error',
  'amplification-over-budget': 'error',
  'in-memory-exceeds-lock': 'error',
  'in-memory-exceeds-poll-interval': 'error',
  'in-memory-exceeds-consumer-timeout': 'error',
  'immediate-retries-long': 'warning',
  'no-jitter': 'warning',
  'jitter-not-applied': 'warning',
  // Classification and handler.
  'non-idempotent-retry': 'error',
  'unknown-errors-transient': 'warning',
  'transient-client-error': 'warning',
  'no-transient-rules': 'warning',
  'ordering-not-kept': 'error',
  // Broker targets.
  'no-targets': 'warning',
  'broker-version-unsupported': 'error',
  'mode-needs-newer-broker': 'error',
  'delayed-retry-linear': 'warning',
  'broker-refuses-setting': 'error',
  'at-least-once-needs-reject-publish': 'error',
  'at-most-once-dead-lettering': 'warning',
  'unbounded-wait-queue': 'warning',
  'retention-below-delay': 'error',
  'min-insync-above-replication': 'error',
  'lock-duration-over-max': 'error',
  'delivery-limit-below-attempts': 'error',
  // Replication (policy/rules/replication.ts).
  'no-replication': 'error',
  'replicas-above-cluster': 'error',
  'quorum-replicas-even': 'warning',
  'min-insync-equals-replication': 'warning',
  'acks-below-all': 'warning',
  'name-invalid': 'error',
  'name-too-long': 'error',
  'name-collision': 'error',
  // Reviewed exceptions.
  'acknowledgement-unused': 'warning',
} as const;

export type IssueCode = keyof typeof ISSUE_CODES;
/**
 * error: fails validate and stops derivePlan. warning: fails only validate --strict. note: said,
 * never fails (a file that is not a policy, a warning the policy acknowledges with a reason).
 */
export type Severity = 'error' | 'warning' | 'note';

/** Warnings a policy may acknowledge in spec.acknowledge (turning them into notes). */
export const WARNING_CODES = (Object.keys(ISSUE_CODES) as IssueCode[]).filter(
  (code) => ISSUE_CODES[code] === 'warning' && code !== 'acknowledgement-unused',
);

export function severityOf(code: IssueCode): Severity {
  return ISSUE_CODES[code];
}
