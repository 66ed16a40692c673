import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { derivePlan, loadPolicyText } from '../../../policy';
import { deadLetterLocations } from '../../../runtime/dead-letters';

/** Service Bus dead-letter locations come from the plan's deadLetterQueues, spelled as the SDK wants. */
const BILLING = readFileSync('policies/billing.yaml', 'utf8');

function planOf(text: string) {
  const { policies, issues } = loadPolicyText(text);
  const loaded = policies[0];
  if (!loaded) throw new Error(JSON.stringify(issues));
  return derivePlan(loaded.policy);
}

describe('Service Bus dead-letter locations', () => {
  it('a subscription with a retry queue: attempt 1 on the subscription, the rest on the retry queue', () => {
    const plan = planOf(BILLING);
    const locations = deadLetterLocations(plan, 'serviceBus');
    expect(locations.map((each) => each.name)).toEqual([
      'orders/Subscriptions/billing/$DeadLetterQueue',
      `${plan.targets.serviceBus?.scheduleTo}/$DeadLetterQueue`,
    ]);
    expect(locations.map((each) => each.name.toLowerCase())).toEqual(
      plan.targets.serviceBus?.deadLetterQueues.map((each) => each.path.toLowerCase()),
    );
  });

  it('one attempt: every failure is on the subscription, so one location', () => {
    const plan = planOf(BILLING.replace('maxAttempts: 4', 'maxAttempts: 1'));
    expect(deadLetterLocations(plan, 'serviceBus').map((each) => each.name)).toEqual([
      'orders/Subscriptions/billing/$DeadLetterQueue',
    ]);
  });

  it('forwarded: one queue, only the messages dead-lettered on our entities', () => {
    const plan = planOf(
      BILLING.replace(
        '      subscription: billing',
        '      subscription: billing\n      forwardDeadLettersTo: ops.dead',
      ),
    );
    const [only, ...rest] = deadLetterLocations(plan, 'serviceBus');
    expect(rest).toEqual([]);
    expect(only).toMatchObject({
      kind: 'queue',
      name: 'ops.dead',
      onlyFrom: ['orders/Subscriptions/billing', plan.targets.serviceBus?.scheduleTo],
    });
  });
});
