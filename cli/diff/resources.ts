import type { RetryPlan } from '../../policy';
import type { TargetName } from '../../policy/plan/targets';
import { kafkaChanges } from './kafka';
import { rabbitMqChanges } from './rabbitmq';
import { type ResourceChange, RISK_ORDER } from './risk';
import { serviceBusChanges } from './servicebus';

/** Every resource change on one target between two plans, riskiest first. */
export function resourceChanges(
  before: RetryPlan | undefined,
  after: RetryPlan | undefined,
  target: TargetName,
): ResourceChange[] {
  const changes = (() => {
    switch (target) {
      case 'rabbitmq':
        return rabbitMqChanges(before?.targets.rabbitmq, after?.targets.rabbitmq);
      case 'kafka':
        return kafkaChanges(before?.targets.kafka, after?.targets.kafka);
      case 'serviceBus':
        return serviceBusChanges(before?.targets.serviceBus, after?.targets.serviceBus);
    }
  })();
  // Stable: riskiest first, then in the plan's own order.
  return changes
    .map((change, index) => ({ change, index }))
    .sort((a, b) => RISK_ORDER[a.change.risk] - RISK_ORDER[b.change.risk] || a.index - b.index)
    .map(({ change }) => change);
}
