import type * as servicebus from '@pulumi/azure-native/servicebus';
import * as pulumi from '@pulumi/pulumi';
import { mustGet } from '../children';
import { DeleteGuard } from '../guard';
import {
  componentInputs,
  componentOptions,
  inheritedOptions,
  lifecycleOptions,
  resolveLifecycle,
} from '../options';
import { planJson, requireTarget } from '../plan';
import { loadProvider } from '../providers';
import {
  SERVICE_BUS_TOPOLOGY_TYPE,
  type ServiceBusRetryTopologyArgs,
  type ServiceBusTopologyOutputs,
  validateServiceBusArgs,
} from './args';
import { serviceBusEntitySpecs, serviceBusIdentity, serviceBusRuleSpecs } from './specs';

/**
 * Service Bus topology of one policy: the consumer's queue, or its subscription on the producer's
 * topic, plus the retry queue when the plan has one, with maxDeliveryCount, lock duration, TTL
 * and dead-lettering from the plan; optionally SAS rules for the consumer.
 */
export class ServiceBusRetryTopology extends pulumi.ComponentResource implements ServiceBusTopologyOutputs {
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
  readonly queues: Readonly<Record<string, servicebus.Queue>>;
  readonly subscription: servicebus.Subscription | undefined;

  constructor(name: string, args: ServiceBusRetryTopologyArgs, opts: pulumi.ComponentResourceOptions = {}) {
    const plan = requireTarget(args.plan, 'serviceBus');
    validateServiceBusArgs(args);
    const entitySpecs = serviceBusEntitySpecs(plan);
    const ruleSpecs = args.consumerRuleName ? serviceBusRuleSpecs(entitySpecs, args.consumerRuleName) : [];
    const provider = loadProvider('serviceBus', `policy "${args.plan.policy}" has a serviceBus target`);
    const settings = resolveLifecycle(args);
    super(
      SERVICE_BUS_TOPOLOGY_TYPE,
      name,
      componentInputs(args.plan, ['serviceBus']),
      componentOptions(opts, settings, serviceBusIdentity(entitySpecs)),
    );

    const inherited = inheritedOptions(opts);
    const where = { resourceGroupName: args.resourceGroupName, namespaceName: args.namespaceName };
    const created: Record<string, pulumi.CustomResource> = {};
    const queues: Record<string, servicebus.Queue> = {};
    let subscription: servicebus.Subscription | undefined;
    for (const spec of entitySpecs) {
      const child = `${name}-${spec.key}`;
      const options = {
        parent: this,
        ...lifecycleOptions(spec.lifecycle, settings, inherited),
        dependsOn: spec.after.map((key) => mustGet(created, key)),
      };
      if (spec.kind === 'queue') {
        queues[spec.key] = new provider.Queue(child, { ...where, ...spec.args }, options);
        created[spec.key] = queues[spec.key] as servicebus.Queue;
      } else {
        subscription = new provider.Subscription(child, { ...where, ...spec.args }, options);
        created[spec.key] = subscription;
      }
    }
    const rules = ruleSpecs.map(
      (spec) =>
        new provider.QueueAuthorizationRule(
          `${name}-${spec.key}`,
          { ...where, ...spec.args, queueName: mustGet(queues, spec.queueKey).name },
          { parent: this, ...lifecycleOptions(spec.lifecycle, settings, inherited) },
        ),
    );
    new DeleteGuard(`${name}-delete-guard`, [...Object.values(created), ...rules], {
      parent: this,
      protect: lifecycleOptions('lasting', settings, inherited).protect,
    });

    const entity = plan.entity;
    this.queues = queues;
    this.subscription = subscription;
    this.planJson = pulumi.output(planJson(args.plan));
    this.namespaceName = pulumi.output(args.namespaceName);
    this.entityPath =
      entity.kind === 'queue'
        ? mustGet(queues, 'main-queue').name
        : pulumi.interpolate`${entity.topic}/subscriptions/${subscription?.name ?? entity.subscription}`;
    this.topic = pulumi.output(entity.kind === 'queue' ? '' : entity.topic);
    this.retryQueue = queues['retry-queue']?.name ?? pulumi.output('');
    this.scheduleTo = pulumi.output(plan.scheduleTo);
    this.consumerRules = pulumi.all(rules.map((rule) => rule.name));
    this.registerOutputs({
      planJson: this.planJson,
      namespaceName: this.namespaceName,
      entityPath: this.entityPath,
      topic: this.topic,
      retryQueue: this.retryQueue,
      scheduleTo: this.scheduleTo,
      consumerRules: this.consumerRules,
    });
  }
}
