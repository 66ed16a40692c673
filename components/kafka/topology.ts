import type * as kafka from '@pulumi/kafka';
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
import { KAFKA_TOPOLOGY_TYPE, type KafkaRetryTopologyArgs, type KafkaTopologyOutputs } from './args';
import { kafkaAclSpecs, kafkaIdentity, kafkaTopicSpecs } from './specs';

/**
 * Kafka topology of one policy: one retry topic per level and a dead-letter topic, each with the
 * source's partition count, plus the source topic when the policy declares it, and optionally
 * the consumer's ACLs. Topic config updates in place; names never carry a delay.
 */
export class KafkaRetryTopology extends pulumi.ComponentResource implements KafkaTopologyOutputs {
  readonly planJson: pulumi.Output<string>;
  readonly sourceTopic: pulumi.Output<string>;
  /** Retry topic names, level 1 first. */
  readonly retryTopics: pulumi.Output<string[]>;
  readonly deadLetterTopic: pulumi.Output<string>;
  readonly consumerGroup: pulumi.Output<string>;
  readonly retryConsumerGroup: pulumi.Output<string>;
  readonly topics: Readonly<Record<string, kafka.Topic>>;
  readonly acls: Readonly<Record<string, kafka.Acl>>;

  constructor(name: string, args: KafkaRetryTopologyArgs, opts: pulumi.ComponentResourceOptions = {}) {
    const plan = requireTarget(args.plan, 'kafka');
    const aclSpecs = args.consumerPrincipal ? kafkaAclSpecs(plan, args.consumerPrincipal, args.aclHost) : [];
    const provider = loadProvider('kafka', `policy "${args.plan.policy}" has a kafka target`);
    const topicSpecs = kafkaTopicSpecs(plan);
    const settings = resolveLifecycle(args);
    super(
      KAFKA_TOPOLOGY_TYPE,
      name,
      componentInputs(args.plan, ['kafka']),
      componentOptions(opts, settings, kafkaIdentity(topicSpecs)),
    );

    const inherited = inheritedOptions(opts);
    const topics: Record<string, kafka.Topic> = {};
    for (const spec of topicSpecs) {
      topics[spec.key] = new provider.Topic(`${name}-${spec.key}`, spec.args, {
        parent: this,
        ...lifecycleOptions(spec.lifecycle, settings, inherited),
        dependsOn: spec.after.map((key) => mustGet(topics, key)),
      });
    }
    const acls: Record<string, kafka.Acl> = {};
    for (const spec of aclSpecs) {
      acls[spec.key] = new provider.Acl(`${name}-${spec.key}`, spec.args, {
        parent: this,
        ...lifecycleOptions(spec.lifecycle, settings, inherited),
        // An ACL is identified by its values alone: create-before-delete would delete the new one.
        deleteBeforeReplace: true,
        // Grant access once the topics exist.
        dependsOn: Object.values(topics),
      });
    }
    new DeleteGuard(`${name}-delete-guard`, [...Object.values(topics), ...Object.values(acls)], {
      parent: this,
      protect: lifecycleOptions('lasting', settings, inherited).protect,
    });

    this.topics = topics;
    this.acls = acls;
    this.planJson = pulumi.output(planJson(args.plan));
    this.sourceTopic = topics['source-topic']?.name ?? pulumi.output(plan.sourceTopic);
    this.retryTopics = pulumi.all(
      topicSpecs.filter((spec) => spec.role === 'retry').map((spec) => mustGet(topics, spec.key).name),
    );
    this.deadLetterTopic = mustGet(topics, 'dlt').name;
    this.consumerGroup = pulumi.output(plan.consumerGroup);
    this.retryConsumerGroup = pulumi.output(plan.retryConsumerGroup);
    this.registerOutputs({
      planJson: this.planJson,
      sourceTopic: this.sourceTopic,
      retryTopics: this.retryTopics,
      deadLetterTopic: this.deadLetterTopic,
      consumerGroup: this.consumerGroup,
      retryConsumerGroup: this.retryConsumerGroup,
    });
  }
}
