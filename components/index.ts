/**
 * Public API of the Pulumi components (`retry-topology/components`). Components read the plan
 * from `derivePlan`, never the raw policy; the spec builders are the pure half, exported so a
 * reviewer or a test can see every resource argument without Pulumi.
 */
export { TopologyError, type TopologyErrorCode } from './errors';
export {
  KAFKA_TOPOLOGY_TYPE,
  KafkaRetryTopology,
  type KafkaRetryTopologyArgs,
} from './kafka';
export {
  KAFKA_ACL_ANY_HOST,
  type KafkaAclChild,
  type KafkaAclOperation,
  type KafkaTopicChild,
  kafkaAclSpecs,
  kafkaTopicSpecs,
  validateKafkaPrincipal,
} from './kafka-specs';
export {
  componentInputs,
  type InheritedOptions,
  inheritedOptions,
  LIFECYCLE_DEFAULTS,
  type Lifecycle,
  type LifecycleSettings,
  lifecycleOptions,
  resolveLifecycle,
} from './options';
export { planJson, requireTarget, TARGET_NAMES, type TargetName } from './plan';
export {
  RABBITMQ_TOPOLOGY_TYPE,
  type RabbitMqConsumerUser,
  RabbitMqRetryTopology,
  type RabbitMqRetryTopologyArgs,
  validateRabbitMqArgs,
} from './rabbitmq';
export {
  policyDefinition,
  type RabbitBindingChild,
  type RabbitExchangeChild,
  type RabbitMqSpecs,
  type RabbitPolicyChild,
  type RabbitQueueChild,
  rabbitMqSpecs,
  rabbitQueueKey,
} from './rabbitmq-specs';
export {
  type KafkaTargetOptions,
  type RabbitMqTargetOptions,
  RETRY_TOPOLOGY_TYPE,
  RetryTopology,
  type RetryTopologyArgs,
  type ServiceBusTargetOptions,
  selectTargets,
} from './retry-topology';
export {
  SERVICE_BUS_TOPOLOGY_TYPE,
  ServiceBusRetryTopology,
  type ServiceBusRetryTopologyArgs,
  validateServiceBusArgs,
} from './servicebus';
export {
  type ServiceBusEntityChild,
  type ServiceBusQueueChild,
  type ServiceBusRuleChild,
  type ServiceBusSubscriptionChild,
  serviceBusEntitySpecs,
  serviceBusRuleSpecs,
  validateRuleName,
} from './servicebus-specs';
