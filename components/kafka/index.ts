/**
 * `retry-topology/components/kafka`: the Kafka component alone. It loads @pulumi/kafka and no
 * other provider; without it, importing this entry point fails with one TopologyError
 * (`provider-not-installed`) naming the package to install.
 */
import { loadProvider } from '../providers';

loadProvider('kafka');

export {
  KAFKA_TOPOLOGY_TYPE,
  type KafkaRetryTopologyArgs,
  type KafkaTopologyOutputs,
} from './args';
export {
  KAFKA_ACL_ANY_HOST,
  type KafkaAclChild,
  type KafkaAclOperation,
  type KafkaTopicChild,
  kafkaAclSpecs,
  kafkaTopicSpecs,
} from './specs';
export { KafkaRetryTopology } from './topology';
