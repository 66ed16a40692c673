import * as pulumi from '@pulumi/pulumi';
import type { RetryPlan } from '../policy';
import { TopologyError } from './errors';
import type { KafkaRetryTopologyArgs, KafkaTopologyOutputs } from './kafka/args';
import { KafkaRetryTopology } from './kafka/topology';
import { componentInputs, inheritedOptions, type LifecycleSettings } from './options';
import { planJson, requireTarget, TARGET_NAMES, type TargetName } from './plan';
import type { RabbitMqRetryTopologyArgs, RabbitMqTopologyOutputs } from './rabbitmq/args';
import { RabbitMqRetryTopology } from './rabbitmq/topology';
import type { ServiceBusRetryTopologyArgs, ServiceBusTopologyOutputs } from './servicebus/args';
import { ServiceBusRetryTopology } from './servicebus/topology';

export const RETRY_TOPOLOGY_TYPE = 'retry-topology:index:RetryTopology';

/** A target's own options; its lifecycle settings override the ones given for all targets. */
export type TargetOptions<A> = Omit<A, 'plan'> & {
  /** The provider for this target's resources (else the one inherited from opts, else the default). */
  provider?: pulumi.ProviderResource;
};
export type RabbitMqTargetOptions = TargetOptions<RabbitMqRetryTopologyArgs>;
export type KafkaTargetOptions = TargetOptions<KafkaRetryTopologyArgs>;
export type ServiceBusTargetOptions = TargetOptions<ServiceBusRetryTopologyArgs>;

export interface RetryTopologyArgs extends LifecycleSettings {
  /** The whole plan from `derivePlan`. */
  plan: RetryPlan;
  /** Which of the plan's targets to provision. Default: every target the plan names. */
  targets?: TargetName[];
  rabbitmq?: RabbitMqTargetOptions;
  kafka?: KafkaTargetOptions;
  /** Required when the Service Bus target is provisioned: it says where (namespace, resource group). */
  serviceBus?: ServiceBusTargetOptions;
}

/**
 * The targets to provision, in a fixed order. Options for a target the plan lacks are ignored, so
 * one options object can serve several policies; a target asked for by name must be in the plan.
 */
export function selectTargets(args: RetryTopologyArgs): TargetName[] {
  const wanted = args.targets ?? TARGET_NAMES.filter((target) => args.plan.targets[target] !== undefined);
  for (const target of wanted) requireTarget(args.plan, target);
  if (wanted.includes('serviceBus') && !args.serviceBus) {
    throw new TopologyError(
      'missing-option',
      `policy "${args.plan.policy}" has a serviceBus target: pass args.serviceBus with resourceGroupName and namespaceName, or leave serviceBus out of args.targets`,
    );
  }
  return TARGET_NAMES.filter((target) => wanted.includes(target));
}

/**
 * One policy → every target that policy names (or the subset in `targets`). A target's provider
 * SDK is loaded only when that target is built.
 */
export class RetryTopology extends pulumi.ComponentResource {
  readonly planJson: pulumi.Output<string>;
  /** The targets provisioned, e.g. ["rabbitmq", "kafka"]. */
  readonly targets: pulumi.Output<TargetName[]>;
  /**
   * The child components, typed by their outputs only, so this entry point names no provider's
   * types. For the resources themselves, build the target's component from its own entry point.
   */
  readonly rabbitmq: (RabbitMqTopologyOutputs & pulumi.ComponentResource) | undefined;
  readonly kafka: (KafkaTopologyOutputs & pulumi.ComponentResource) | undefined;
  readonly serviceBus: (ServiceBusTopologyOutputs & pulumi.ComponentResource) | undefined;

  constructor(name: string, args: RetryTopologyArgs, opts: pulumi.ComponentResourceOptions = {}) {
    const targets = selectTargets(args);
    super(RETRY_TOPOLOGY_TYPE, name, componentInputs(args.plan, targets), opts);

    const shared: LifecycleSettings = {
      ...(args.protectMessages === undefined ? {} : { protectMessages: args.protectMessages }),
      ...(args.retainRetryLevels === undefined ? {} : { retainRetryLevels: args.retainRetryLevels }),
    };
    // protect and retainOnDelete are passed on explicitly: a child component reads its own opts.
    const childOpts = (provider: pulumi.ProviderResource | undefined): pulumi.ComponentResourceOptions => ({
      parent: this,
      ...inheritedOptions(opts),
      ...(provider ? { providers: [provider] } : {}),
    });
    const build = (target: TargetName) => targets.includes(target);

    const rabbit = build('rabbitmq') ? withoutProvider(args.rabbitmq ?? {}) : undefined;
    this.rabbitmq =
      rabbit &&
      new RabbitMqRetryTopology(
        name,
        { ...shared, ...rabbit.rest, plan: args.plan },
        childOpts(rabbit.provider),
      );
    const kafka = build('kafka') ? withoutProvider(args.kafka ?? {}) : undefined;
    this.kafka =
      kafka &&
      new KafkaRetryTopology(name, { ...shared, ...kafka.rest, plan: args.plan }, childOpts(kafka.provider));
    // selectTargets has made sure args.serviceBus is there when the target is built.
    const serviceBus = build('serviceBus') && args.serviceBus ? withoutProvider(args.serviceBus) : undefined;
    this.serviceBus =
      serviceBus &&
      new ServiceBusRetryTopology(
        name,
        { ...shared, ...serviceBus.rest, plan: args.plan },
        childOpts(serviceBus.provider),
      );
    this.planJson = pulumi.output(planJson(args.plan));
    this.targets = pulumi.output(targets);
    this.registerOutputs({ planJson: this.planJson, targets: this.targets });
  }
}

function withoutProvider<O extends { provider?: pulumi.ProviderResource }>(options: O) {
  const { provider, ...rest } = options;
  return { provider, rest };
}
