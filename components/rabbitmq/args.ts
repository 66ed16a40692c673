import type * as pulumi from '@pulumi/pulumi';
import type { RetryPlan } from '../../policy';
import { TopologyError } from '../errors';
import type { LifecycleSettings } from '../options';

/** Provider-free half of the RabbitMQ component: its type token, arguments and outputs. */

export const RABBITMQ_TOPOLOGY_TYPE = 'retry-topology:index:RabbitMqRetryTopology';

export interface RabbitMqConsumerUser {
  /** The consumer's user name. Plain text: it decides what exists and is not secret. */
  name: string;
  /**
   * Given: the user is created with this password (kept secret in state). Left out: the user
   * already exists and only its permissions on the plan's vhost are managed.
   */
  password?: pulumi.Input<string>;
  tags?: string[];
}

export interface RabbitMqRetryTopologyArgs extends LifecycleSettings {
  /** The whole plan from `derivePlan`; this component reads `plan.targets.rabbitmq`. */
  plan: RetryPlan;
  /**
   * A least-privilege user for the consumer: permissions whose regexes cover exactly this
   * topology (`plan.targets.rabbitmq.consumerPermissions`). The user's permissions on the vhost
   * are replaced by these, so never name an admin user here.
   */
  consumerUser?: RabbitMqConsumerUser;
}

/** What the RabbitMQ component publishes, without the provider's resource types. */
export interface RabbitMqTopologyOutputs {
  /** The plan this topology was provisioned from, as `retry-topology plan --format json` prints it. */
  readonly planJson: pulumi.Output<string>;
  readonly vhost: pulumi.Output<string>;
  readonly sourceExchange: pulumi.Output<string>;
  readonly mainQueue: pulumi.Output<string>;
  readonly deadLetterExchange: pulumi.Output<string>;
  readonly deadLetterQueue: pulumi.Output<string>;
  /** The exchange retry copies are published to; "" when the mode needs none. */
  readonly retryExchange: pulumi.Output<string>;
  /** Wait queue names, level 1 first; empty unless the mode is ttl-queues. */
  readonly waitQueues: pulumi.Output<string[]>;
  /** The consumer user's name when `consumerUser` was given, otherwise "". */
  readonly consumerUser: pulumi.Output<string>;
}

/** Refuses arguments that would fail late or harm the broker; messages name the argument. */
export function validateRabbitMqArgs(args: RabbitMqRetryTopologyArgs): void {
  const user = args.consumerUser;
  if (user && user.name.trim() === '') {
    throw new TopologyError('invalid-option', 'args.consumerUser.name is empty: name the consumer user');
  }
}
