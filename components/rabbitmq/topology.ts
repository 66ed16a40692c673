import * as pulumi from '@pulumi/pulumi';
import type * as rabbitmq from '@pulumi/rabbitmq';
import { mustGet } from '../children';
import { componentInputs, inheritedOptions, lifecycleOptions, resolveLifecycle } from '../options';
import { planJson, requireTarget } from '../plan';
import { loadProvider } from '../providers';
import {
  RABBITMQ_TOPOLOGY_TYPE,
  type RabbitMqRetryTopologyArgs,
  type RabbitMqTopologyOutputs,
  validateRabbitMqArgs,
} from './args';
import { rabbitMqSpecs } from './specs';

/**
 * RabbitMQ topology of one policy: exchanges, a quorum main queue with DLX and delivery limit,
 * the dead-letter queue, one wait queue per level (ttl-queues mode), one policy per queue holding
 * every mutable setting, the bindings, and optionally the consumer's user and permissions.
 *
 * Changing a delay, the attempt count, a max-length, the TTL or the delivery limit changes only
 * policies (updated in place): queue arguments hold just the queue type, so no queue is replaced.
 */
export class RabbitMqRetryTopology extends pulumi.ComponentResource implements RabbitMqTopologyOutputs {
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
  readonly exchanges: Readonly<Record<string, rabbitmq.Exchange>>;
  readonly policies: Readonly<Record<string, rabbitmq.Policy>>;
  readonly queues: Readonly<Record<string, rabbitmq.Queue>>;
  readonly bindings: Readonly<Record<string, rabbitmq.Binding>>;

  constructor(name: string, args: RabbitMqRetryTopologyArgs, opts: pulumi.ComponentResourceOptions = {}) {
    const plan = requireTarget(args.plan, 'rabbitmq');
    validateRabbitMqArgs(args);
    const provider = loadProvider('rabbitmq', `policy "${args.plan.policy}" has a rabbitmq target`);
    super(RABBITMQ_TOPOLOGY_TYPE, name, componentInputs(args.plan, ['rabbitmq']), opts);

    const specs = rabbitMqSpecs(plan);
    const settings = resolveLifecycle(args);
    const inherited = inheritedOptions(opts);
    const child = (key: string) => `${name}-${key}`;
    const options = (lifecycle: Parameters<typeof lifecycleOptions>[0]) => ({
      parent: this,
      ...lifecycleOptions(lifecycle, settings, inherited),
    });

    const exchanges: Record<string, rabbitmq.Exchange> = {};
    for (const spec of specs.exchanges) {
      exchanges[spec.key] = new provider.Exchange(child(spec.key), spec.args, options(spec.lifecycle));
    }
    const policies: Record<string, rabbitmq.Policy> = {};
    for (const spec of specs.policies) {
      policies[spec.key] = new provider.Policy(child(spec.key), spec.args, options(spec.lifecycle));
    }
    const queues: Record<string, rabbitmq.Queue> = {};
    for (const spec of specs.queues) {
      // The policy first: the queue has its DLX, limits and TTL from the moment it exists.
      queues[spec.key] = new provider.Queue(child(spec.key), spec.args, {
        ...options(spec.lifecycle),
        dependsOn: [mustGet(policies, spec.policyKey)],
      });
    }

    const bindings: Record<string, rabbitmq.Binding> = {};
    const bind = (spec: (typeof specs.bindings)[number], after: rabbitmq.Binding[]) => {
      bindings[spec.key] = new provider.Binding(
        child(spec.key),
        {
          ...spec.args,
          source: spec.exchangeKey ? mustGet(exchanges, spec.exchangeKey).name : spec.args.source,
          // From the queue's output, so the binding follows the queue if it is ever recreated.
          destination: mustGet(queues, spec.queueKey).name,
        },
        {
          ...options(spec.lifecycle),
          // A binding has no name of its own: a create-before-delete replacement would create the
          // same binding again and then delete it. Delete first, then create.
          deleteBeforeReplace: true,
          dependsOn: after,
        },
      );
    };
    for (const spec of specs.bindings.filter((each) => !each.opensInflow)) bind(spec, []);
    // Messages flow in only once the dead-letter path and the wait queues are bound.
    const ready = Object.values(bindings);
    for (const spec of specs.bindings.filter((each) => each.opensInflow)) bind(spec, ready);

    let consumerUser: pulumi.Output<string> = pulumi.output('');
    if (args.consumerUser) {
      const { name: userName, password, tags } = args.consumerUser;
      const user =
        password === undefined
          ? undefined
          : new provider.User(
              child('consumer-user'),
              { name: userName, password: pulumi.secret(password), tags: tags ?? [] },
              options('plain'),
            );
      consumerUser = user ? user.name : pulumi.output(userName);
      new provider.Permissions(
        child('consumer-permissions'),
        { user: consumerUser, vhost: specs.vhost, permissions: specs.permissions },
        // Keyed by user and vhost only: a create-before-delete replacement would delete itself.
        { ...options('plain'), deleteBeforeReplace: true },
      );
    }

    const source = plan.exchanges.find((exchange) => exchange.role === 'source');
    this.exchanges = exchanges;
    this.policies = policies;
    this.queues = queues;
    this.bindings = bindings;
    this.planJson = pulumi.output(planJson(args.plan));
    this.vhost = pulumi.output(specs.vhost);
    this.sourceExchange = exchanges['source-exchange']?.name ?? pulumi.output(source?.name ?? '');
    this.mainQueue = mustGet(queues, 'main-queue').name;
    this.deadLetterExchange = mustGet(exchanges, 'dlx').name;
    this.deadLetterQueue = mustGet(queues, 'dlq').name;
    this.retryExchange = exchanges['retry-exchange']?.name ?? pulumi.output('');
    this.waitQueues = pulumi.all(
      specs.queues.filter((spec) => spec.role === 'wait').map((spec) => mustGet(queues, spec.key).name),
    );
    this.consumerUser = consumerUser;
    this.registerOutputs({
      planJson: this.planJson,
      vhost: this.vhost,
      sourceExchange: this.sourceExchange,
      mainQueue: this.mainQueue,
      deadLetterExchange: this.deadLetterExchange,
      deadLetterQueue: this.deadLetterQueue,
      retryExchange: this.retryExchange,
      waitQueues: this.waitQueues,
      consumerUser: this.consumerUser,
    });
  }
}
