// Runs inside a throwaway project that has retry-topology and exactly one Pulumi provider SDK
// installed, and prints one JSON line with what happened. Usage (cwd = the project):
//   node one-provider-check.cjs <rabbitmq|kafka|serviceBus>
const own = process.argv[2];
const ENTRY = { rabbitmq: 'rabbitmq', kafka: 'kafka', serviceBus: 'servicebus' };
const CLASS = { rabbitmq: 'RabbitMqRetryTopology', kafka: 'KafkaRetryTopology', serviceBus: 'ServiceBusRetryTopology' };
// One policy naming every target, so the aggregate can be asked for each.
const TARGETS = {
  rabbitmq: { exchange: 'orders', routingKey: 'placed', queue: 'billing.placed', mode: 'ttl-queues', brokerVersion: '3.13.7' },
  kafka: { topic: 'orders', consumerGroup: 'billing', partitions: 3 },
  serviceBus: { entity: 'subscription', topic: 'orders', subscription: 'billing' },
};
const SERVICE_BUS_ARGS = { resourceGroupName: 'rg', namespaceName: 'ns' };

const outcome = (run) => {
  try {
    const value = run();
    return { ok: true, value };
  } catch (error) {
    return { ok: false, code: error.code, name: error.name, message: String(error.message).split('\n')[0] };
  }
};

async function main() {
  const pulumi = require('@pulumi/pulumi');
  const types = [];
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        types.push(args.type);
        return { id: args.custom ? `${args.name}-id` : undefined, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    'one-provider',
    'dev',
  );
  const { parsePolicy, derivePlan } = require('retry-topology');
  const planFor = (targets) =>
    derivePlan(
      parsePolicy({
        apiVersion: 'retry-topology/v1',
        kind: 'RetryPolicy',
        metadata: { name: 'billing.placed' },
        spec: {
          consumer: 'billing',
          maxAttempts: 3,
          backoff: { type: 'exponential', initial: '1s', multiplier: 2, max: '4s' },
          jitter: 'full',
          classify: { presets: ['http-transient'] },
          idempotency: { idempotent: true, key: 'orderId' },
          targets: Object.fromEntries(targets.map((target) => [target, TARGETS[target]])),
        },
      }),
    );

  const entries = {};
  for (const [target, entry] of Object.entries(ENTRY)) {
    entries[target] = outcome(() => Object.keys(require(`retry-topology/components/${entry}`)));
  }
  const aggregate = require('retry-topology/components');
  const withOwn = outcome(() => {
    new aggregate.RetryTopology('own', { plan: planFor([own]), serviceBus: SERVICE_BUS_ARGS });
    return true;
  });
  const withAll = outcome(() => {
    new aggregate.RetryTopology('all', {
      plan: planFor(['rabbitmq', 'kafka', 'serviceBus']),
      serviceBus: SERVICE_BUS_ARGS,
    });
    return true;
  });
  const ownClass = outcome(() => {
    const entry = require(`retry-topology/components/${ENTRY[own]}`);
    new entry[CLASS[own]]('direct', { plan: planFor([own]), ...SERVICE_BUS_ARGS });
    return true;
  });
  await pulumi.runtime.waitForRPCs?.();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const providersLoaded = [
    ...new Set(
      Object.keys(require.cache)
        .map((file) => /node_modules[\\/]@pulumi[\\/](rabbitmq|kafka|azure-native)[\\/]/.exec(file)?.[1])
        .filter(Boolean),
    ),
  ].sort();
  process.stdout.write(
    `${JSON.stringify({ entries, aggregateKeys: Object.keys(aggregate), withOwn, withAll, ownClass, types, providersLoaded })}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
