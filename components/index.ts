/**
 * Public API of `retry-topology/components`: `RetryTopology` (one policy, every target it names)
 * and what every target shares. It loads no provider SDK by itself: `RetryTopology` loads
 * @pulumi/rabbitmq, @pulumi/kafka or @pulumi/azure-native only for a target the plan names, and
 * nothing exported here names a provider's types, so a project with one provider installed
 * compiles and runs. The per-target components are `retry-topology/components/rabbitmq`, `/kafka`
 * and `/servicebus`.
 *
 * Components read the plan from `derivePlan`, never the raw policy; the spec builders are the
 * pure half, exported so a reviewer or a test can see every resource argument without Pulumi.
 */
export { RetryTopologyError } from '../policy/errors';
export { TopologyError, type TopologyErrorCode } from './errors';
export { KAFKA_TOPOLOGY_TYPE, type KafkaRetryTopologyArgs, type KafkaTopologyOutputs } from './kafka/args';
export {
  KAFKA_ACL_ANY_HOST,
  type KafkaAclChild,
  type KafkaAclOperation,
  type KafkaTopicChild,
  kafkaAclSpecs,
  kafkaTopicSpecs,
} from './kafka/specs';
export {
  type InheritedOptions,
  inheritedOptions,
  LIFECYCLE_DEFAULTS,
  type Lifecycle,
  type LifecycleSettings,
  lifecycleOptions,
  resolveLifecycle,
} from './options';
export { planJson, TARGET_NAMES, type TargetName } from './plan';
export {
  RABBITMQ_TOPOLOGY_TYPE,
  type RabbitMqConsumerUser,
  type RabbitMqRetryTopologyArgs,
  type RabbitMqTopologyOutputs,
} from './rabbitmq/args';
export {
  type RabbitBindingChild,
  type RabbitExchangeChild,
  type RabbitMqSpecs,
  type RabbitPolicyChild,
  type RabbitPolicyRefs,
  type RabbitQueueChild,
  rabbitMqSpecs,
} from './rabbitmq/specs';
export {
  type KafkaTargetOptions,
  type RabbitMqTargetOptions,
  RETRY_TOPOLOGY_TYPE,
  RetryTopology,
  type RetryTopologyArgs,
  type ServiceBusTargetOptions,
  type TargetOptions,
} from './retry-topology';
export {
  SERVICE_BUS_TOPOLOGY_TYPE,
  type ServiceBusRetryTopologyArgs,
  type ServiceBusTopologyOutputs,
} from './servicebus/args';
export {
  type ServiceBusEntityChild,
  type ServiceBusQueueChild,
  type ServiceBusRuleChild,
  type ServiceBusSubscriptionChild,
  serviceBusEntitySpecs,
  serviceBusRuleSpecs,
} from './servicebus/specs';
