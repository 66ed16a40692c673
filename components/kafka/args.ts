import type * as pulumi from '@pulumi/pulumi';
import type { RetryPlan } from '../../policy';
import type { LifecycleSettings } from '../options';

/** Provider-free half of the Kafka component: its type token, arguments and outputs. */

export const KAFKA_TOPOLOGY_TYPE = 'retry-topology:index:KafkaRetryTopology';

export interface KafkaRetryTopologyArgs extends LifecycleSettings {
  /** The whole plan from `derivePlan`; this component reads `plan.targets.kafka`. */
  plan: RetryPlan;
  /** Given (e.g. "User:billing"): Allow ACLs for this principal from `plan.targets.kafka.consumerAcls`. */
  consumerPrincipal?: string;
  /** The host the ACLs allow. Default "*". */
  aclHost?: string;
}

/** What the Kafka component publishes, without the provider's resource types. */
export interface KafkaTopologyOutputs {
  readonly planJson: pulumi.Output<string>;
  readonly sourceTopic: pulumi.Output<string>;
  /** Retry topic names, level 1 first. */
  readonly retryTopics: pulumi.Output<string[]>;
  readonly deadLetterTopic: pulumi.Output<string>;
  readonly consumerGroup: pulumi.Output<string>;
  readonly retryConsumerGroup: pulumi.Output<string>;
}
