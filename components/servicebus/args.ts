import type * as pulumi from '@pulumi/pulumi';
import type { RetryPlan } from '../../policy';
import { TopologyError } from '../errors';
import type { LifecycleSettings } from '../options';

/** Provider-free half of the Service Bus component: its type token, arguments and outputs. */

export const SERVICE_BUS_TOPOLOGY_TYPE = 'retry-topology:index:ServiceBusRetryTopology';

export interface ServiceBusRetryTopologyArgs extends LifecycleSettings {
  /** The whole plan from `derivePlan`; this component reads `plan.targets.serviceBus`. */
  plan: RetryPlan;
  /** Deployment concerns, not in the plan. The namespace (and the producer's topic) must exist. */
  resourceGroupName: pulumi.Input<string>;
  namespaceName: pulumi.Input<string>;
  /** Given: a SAS rule of this name with Listen + Send on each queue the consumer owns. */
  consumerRuleName?: string;
}

/** What the Service Bus component publishes, without the provider's resource types. */
export interface ServiceBusTopologyOutputs {
  readonly planJson: pulumi.Output<string>;
  readonly namespaceName: pulumi.Output<string>;
  /** The queue name, or "<topic>/subscriptions/<subscription>". */
  readonly entityPath: pulumi.Output<string>;
  /** The producer's topic for a subscription, "" for a queue. */
  readonly topic: pulumi.Output<string>;
  /** The retry queue's name, "" when the plan schedules retries on the main queue. */
  readonly retryQueue: pulumi.Output<string>;
  /** Where the runtime schedules retry copies. */
  readonly scheduleTo: pulumi.Output<string>;
  /** Names of the consumer's SAS rules, one per queue (empty without `consumerRuleName`). */
  readonly consumerRules: pulumi.Output<string[]>;
}

/** JavaScript callers get a message naming the missing argument instead of an Azure error later. */
export function validateServiceBusArgs(args: ServiceBusRetryTopologyArgs): void {
  for (const key of ['resourceGroupName', 'namespaceName'] as const) {
    if (args[key] === undefined || args[key] === '') {
      throw new TopologyError(
        'missing-option',
        `args.${key} is required: the plan does not say where to deploy`,
      );
    }
  }
}
