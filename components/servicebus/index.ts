/**
 * `retry-topology/components/servicebus`: the Azure Service Bus component alone. It loads
 * @pulumi/azure-native's servicebus module and no other provider; without @pulumi/azure-native,
 * importing this entry point fails with one TopologyError (`provider-not-installed`) naming the
 * package to install.
 */
import { loadProvider } from '../providers';

loadProvider('serviceBus');

export {
  SERVICE_BUS_TOPOLOGY_TYPE,
  type ServiceBusRetryTopologyArgs,
  type ServiceBusTopologyOutputs,
} from './args';
export {
  type ServiceBusEntityChild,
  type ServiceBusQueueChild,
  type ServiceBusRuleChild,
  type ServiceBusSubscriptionChild,
  serviceBusEntitySpecs,
  serviceBusRuleSpecs,
} from './specs';
export { ServiceBusRetryTopology } from './topology';
