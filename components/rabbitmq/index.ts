/**
 * `retry-topology/components/rabbitmq`: the RabbitMQ component alone. It loads @pulumi/rabbitmq
 * and no other provider; without it, importing this entry point fails with one TopologyError
 * (`provider-not-installed`) naming the package to install.
 */
import { loadProvider } from '../providers';

loadProvider('rabbitmq');

export {
  RABBITMQ_TOPOLOGY_TYPE,
  type RabbitMqConsumerUser,
  type RabbitMqRetryTopologyArgs,
  type RabbitMqTopologyOutputs,
} from './args';
export {
  type RabbitBindingChild,
  type RabbitExchangeChild,
  type RabbitMqSpecs,
  type RabbitPolicyChild,
  type RabbitPolicyRefs,
  type RabbitQueueChild,
  rabbitMqSpecs,
} from './specs';
export { RabbitMqRetryTopology } from './topology';
