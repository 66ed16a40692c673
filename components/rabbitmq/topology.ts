import * as pulumi from '@pulumi/pulumi';
import type * as rabbitmq from '@pulumi/rabbitmq';
import { mustGet } from '../children';
import { DeleteGuard } from '../guard';
import {
  componentInputs,
  componentOptions,
  inheritedOptions,
  type Lifecycle,
  lifecycleOptions,
  resolveLifecycle,
} from '../options';
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
 * policies (updated in place): queue arguments hold just the queue type and the replica count, and
 * a change of either is ignored on an existing queue, so no queue is replaced.
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
    const specs = rabbitMqSpecs(plan);
    const settings = resolveLifecycle(args);
    super(
      RABBITMQ_TOPOLOGY_TYPE,
      name,
      componentInputs(args.plan, ['rabbitmq']),
      componentOptions(opts, settings, specs.identity),
    );

    const inherited = inheritedOptions(opts);
    const child = (key: string) => `${name}-${key}`;
    const created: Record<string, pulumi.CustomResource> = {};
    const options = (spec: { lifecycle: Lifecycle; after: readonly string[] }) => ({
      parent: this,
      ...lifecycleOptions(spec.lifecycle, settings, inherited),
      dependsOn: spec.after.map((key) => mustGet(created, key)),
    });
    const exchanges: Record<string, rabbitmq.Exchange> = {};
    const policies: Record<string, rabbitmq.Policy> = {};
    const queues: Record<string, rabbitmq.Queue> = {};
    const bindings: Record<string, rabbitmq.Binding> = {};
    // One builder per child; they run in `specs.order`, so each child's dependencies exist.
    const builders: Record<string, () => pulumi.CustomResource> = {};
    for (const spec of specs.exchanges) {
      builders[spec.key] = () => {
        const exchange = new provider.Exchange(child(spec.key), spec.args, options(spec));
        exchanges[spec.key] = exchange;
        return exchange;
      };
    }
    for (const spec of specs.policies) {
      builders[spec.key] = () => {
        // A name that points at another child comes from that child's output: the policy is
        // written only once what it dead-letters to exists.
        const definition: Record<string, pulumi.Input<string>> = { ...spec.args.policy.definition };
        const dlx = spec.refs['dead-letter-exchange'];
        if (dlx) definition['dead-letter-exchange'] = mustGet(exchanges, dlx).name;
        const target = spec.refs['dead-letter-routing-key'];
        if (target) definition['dead-letter-routing-key'] = mustGet(queues, target).name;
        const policy = new provider.Policy(
          child(spec.key),
          { ...spec.args, policy: { ...spec.args.policy, definition } },
          options(spec),
        );
        policies[spec.key] = policy;
        return policy;
      };
    }
    for (const spec of specs.queues) {
      // After its policy (in `after`): the queue has its DLX, limits and TTL from the moment it exists.
      builders[spec.key] = () => {
        const queue = new provider.Queue(child(spec.key), spec.args, {
          ...options(spec),
          // The arguments count only when the queue is created. x-queue-type never changes; the
          // replica count (x-quorum-initial-group-size) may, and the provider would answer any
          // change with a delete-first replacement that loses the queue's messages. Existing
          // queues keep their members (docs/replication.md says how to move them), so the
          // arguments are not part of the target's identity either (specs.ts).
          ignoreChanges: ['settings.argumentsJson'],
        });
        queues[spec.key] = queue;
        return queue;
      };
    }
    for (const spec of specs.bindings) {
      builders[spec.key] = () => {
        const binding = new provider.Binding(
          child(spec.key),
          {
            ...spec.args,
            source: spec.exchangeKey ? mustGet(exchanges, spec.exchangeKey).name : spec.args.source,
            destination: mustGet(queues, spec.queueKey).name,
          },
          // A binding has no name of its own: a create-before-delete replacement would create the
          // same binding again and then delete it. Delete first, then create.
          { ...options(spec), deleteBeforeReplace: true },
        );
        bindings[spec.key] = binding;
        return binding;
      };
    }
    for (const key of specs.order) created[key] = mustGet(builders, key)();

    const plain = { parent: this, ...lifecycleOptions('plain', settings, inherited) };
    let consumerUser: pulumi.Output<string> = pulumi.output('');
    if (args.consumerUser) {
      const { name: userName, password, tags } = args.consumerUser;
      const user =
        password === undefined
          ? undefined
          : new provider.User(
              child('consumer-user'),
              { name: userName, password: pulumi.secret(password), tags: tags ?? [] },
              plain,
            );
      consumerUser = user ? user.name : pulumi.output(userName);
      created['consumer-permissions'] = new provider.Permissions(
        child('consumer-permissions'),
        { user: consumerUser, vhost: specs.vhost, permissions: specs.permissions },
        // Keyed by user and vhost only: a create-before-delete replacement would delete itself.
        { ...plain, deleteBeforeReplace: true },
      );
      if (user) created['consumer-user'] = user;
    }
    new DeleteGuard(child('delete-guard'), Object.values(created), {
      parent: this,
      protect: lifecycleOptions('lasting', settings, inherited).protect,
    });

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
