// One measured build, in a process of its own (the Pulumi SDK keeps global state): N policies'
// resources registered under Pulumi mocks, as components or as the bare resources underneath.
// Plain Node on the compiled package (dist/), as a program loads the installed package.
//
//   node bench/components/build.cjs <components|bare> <policies> [dist dir]
//
// components: one `RetryTopology` per policy (RabbitMQ ttl-queues with 3 levels, Kafka with a
//             consumer principal, a Service Bus subscription), as a program builds them.
// bare:       the same custom resources (same types, names and arguments, from the same spec
//             builders, worked out before the clock starts), each registered with no options:
//             the SDK's own cost for that many resources, the floor.
// Prints one JSON line: wall and CPU time from the first constructor until the mock has seen
// every registration (CPU time is what holds on a loaded machine), registrations, peak RSS.
//
// source-map-support is registered first, as the SDK's program runner does under `pulumi up`
// (@pulumi/pulumi cmd/run): the SDK captures a stack for every promise it makes, and with it each
// frame is mapped through the source map of its file, if that file has one.
'use strict';
require('source-map-support/register');
const { readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { parse } = require('yaml');
const pulumi = require('@pulumi/pulumi');
const rabbitmq = require('@pulumi/rabbitmq');
const kafka = require('@pulumi/kafka');
const servicebus = require('@pulumi/azure-native/servicebus');

const ROOT = resolve(__dirname, '..', '..');
const WHERE = { resourceGroupName: 'rg', namespaceName: 'ns' };

/** N distinct policies: policies/billing.yaml with every broker name made unique. */
function scalePlans(policy, count) {
  const base = parse(readFileSync(join(ROOT, 'policies', 'billing.yaml'), 'utf8'));
  return Array.from({ length: count }, (_, index) => {
    const doc = structuredClone(base);
    const name = `p${index}`;
    doc.metadata.name = `${name}.order-placed`;
    const { rabbitmq: rabbit, kafka: topic, serviceBus } = doc.spec.targets;
    rabbit.queue = `${name}.order-placed`;
    rabbit.exchange = `${name}.ordering`;
    topic.topic = `${name}.orders`;
    topic.consumerGroup = `${name}.billing`;
    serviceBus.subscription = `${name}-billing`;
    return policy.derivePlan(policy.parsePolicy(doc));
  });
}

async function main() {
  const [mode, countText, distArg] = process.argv.slice(2);
  const count = Number(countText);
  if ((mode !== 'components' && mode !== 'bare') || !Number.isInteger(count) || count < 1) {
    throw new Error('usage: build.cjs <components|bare> <policies> [dist dir]');
  }
  const dist = resolve(distArg ?? join(ROOT, 'dist'));
  const policy = require(join(dist, 'policy'));
  const components = require(join(dist, 'components'));
  let registrations = 0;
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registrations++;
        return { id: args.custom ? `${args.name}-id` : undefined, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    'bench',
    'scale',
  );
  const plans = scalePlans(policy, count);
  // Every resource class loaded before the clock starts (azure-native loads each on first use).
  const classes = [rabbitmq.Exchange, rabbitmq.Policy, rabbitmq.Queue, rabbitmq.Binding, kafka.Topic, kafka.Acl];
  classes.push(servicebus.Queue, servicebus.Subscription);
  if (classes.some((each) => typeof each !== 'function')) throw new Error('a resource class did not load');
  const bare =
    mode === 'bare'
      ? plans.map((plan) => ({
          name: plan.policy,
          rabbit: components.rabbitMqSpecs(plan.targets.rabbitmq),
          topics: components.kafkaTopicSpecs(plan.targets.kafka),
          acls: components.kafkaAclSpecs(plan.targets.kafka, 'User:bench'),
          entities: components.serviceBusEntitySpecs(plan.targets.serviceBus),
        }))
      : [];

  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  if (mode === 'components') {
    for (const plan of plans) {
      new components.RetryTopology(plan.policy, {
        plan,
        kafka: { consumerPrincipal: 'User:bench' },
        serviceBus: WHERE,
      });
    }
  } else {
    for (const { name, rabbit, topics, acls, entities } of bare) {
      const at = (key) => `${name}-${key}`;
      for (const spec of rabbit.exchanges) new rabbitmq.Exchange(at(spec.key), spec.args);
      for (const spec of rabbit.policies) new rabbitmq.Policy(at(spec.key), spec.args);
      for (const spec of rabbit.queues) new rabbitmq.Queue(at(spec.key), spec.args);
      for (const spec of rabbit.bindings) new rabbitmq.Binding(at(spec.key), spec.args);
      for (const spec of topics) new kafka.Topic(at(spec.key), spec.args);
      for (const spec of acls) new kafka.Acl(at(spec.key), spec.args);
      for (const spec of entities) {
        if (spec.kind === 'queue') new servicebus.Queue(at(spec.key), { ...WHERE, ...spec.args });
        else new servicebus.Subscription(at(spec.key), { ...WHERE, ...spec.args });
      }
    }
  }
  await pulumi.runtime.waitForRPCs();
  const cpu = process.cpuUsage(cpuBefore);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  process.stdout.write(
    `${JSON.stringify({
      mode,
      policies: count,
      ms: Math.round(ms),
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
      registrations,
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    })}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : String(error)}\n`);
  process.exit(1);
});
