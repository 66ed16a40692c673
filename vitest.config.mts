import { defineConfig } from 'vitest/config';

// `unit` needs nothing running; `package` needs npm's registry (or its cache); `integration`
// needs the local brokers that scripts/brokers.sh starts (npm test does that first), RabbitMQ 3.10
// among them; `rabbitmq-4.0` and `rabbitmq-4.3` run the RabbitMQ integration suites on those
// versions; `e2e` needs the brokers and the Pulumi engine (scripts/pulumi-e2e.sh runs it;
// docs/contributing/pulumi-e2e.md).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**', 'test/e2e/**', 'test/package/**', 'test/cluster/**'],
          // Some tests load the built package (dist/) the way users do.
          globalSetup: ['test/support/build-once.ts'],
          // Property tests on a fixed seed (FC_SEED=random searches further): test/support/fast-check-seed.ts.
          setupFiles: ['test/support/fast-check-seed.ts'],
          // Property runs, Pulumi mocks and child Node processes take seconds each; on a loaded
          // 2-core CI machine vitest's 5 s default fails them for being slow, not wrong.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // The package as users get it: packed from a fresh clone, installed with npm into a project
          // made like `pulumi new typescript`, compiled with that project's tsconfig.
          name: 'package',
          include: ['test/package/**/*.test.ts'],
          globalSetup: ['test/package/setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // One test run at a time on the local brokers (another waits for this one).
          globalSetup: ['test/support/local-brokers-lock.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // One broker, shared queues: files run one at a time so they do not disturb each other.
          fileParallelism: false,
        },
      },
      // The RabbitMQ suites again on RabbitMQ 4.0 and 4.3 (scripts/rabbitmq4.sh starts them on these
      // ports). One version at a time (4.0, then 4.3), in a vitest process beside `integration`
      // (scripts/test.sh): each node is a broker of its own, with a lock of its own.
      ...['4.0', '4.3'].map((version, index) => {
        const amqpPort = `57${version.replace('.', '')}`;
        return {
          test: {
            name: `rabbitmq-${version}`,
            include: ['test/integration/rabbitmq/**/*.test.ts'],
            globalSetup: ['test/support/local-brokers-lock.ts'],
            env: {
              RABBITMQ_INSTANCE: version,
              RABBITMQ_URL: `amqp://guest:guest@127.0.0.1:${amqpPort}`,
              RABBITMQ_MANAGEMENT_URL: `http://127.0.0.1:1${amqpPort}`,
            },
            testTimeout: 120_000,
            hookTimeout: 120_000,
            fileParallelism: false,
            sequence: { groupOrder: index + 1 },
          },
        };
      }),
      // The fault tests (test/cluster/), one project per cluster, its files one after the other
      // (they kill nodes of the same cluster). scripts/test.sh runs the two projects in two vitest
      // processes side by side (one process runs the projects' files one at a time): most of
      // their time is waiting for failovers, not the CPU. The setup takes the cluster's lock,
      // starts any node that is down and removes what an interrupted run left. A RabbitMQ node
      // takes 15–30 s to come back, a Kafka broker 30–60 s to rejoin every partition, loaded.
      ...(['rabbitmq', 'kafka'] as const).map((broker) => ({
        test: {
          name: `cluster-${broker}`,
          include: [`test/cluster/${broker}-*.test.ts`],
          globalSetup: ['test/cluster/setup.ts'],
          testTimeout: 900_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      })),
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: ['test/e2e/rabbitmq43-stack.test.ts', 'test/e2e/cluster-stack.test.ts'],
          globalSetup: ['test/support/local-brokers-lock.ts'],
          // Each step runs `pulumi` (5–15 s here) or waits for broker TTLs; a loaded CI machine is slower.
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // The ci and protected stacks side by side: each has its own names (a random prefix), its
          // own Pulumi state and home, and most of their time is waiting for a 2 min TTL. (Vitest's
          // default is one worker on a 2-core machine.)
          maxWorkers: 2,
        },
      },
      {
        // A quorum-delayed-retry stack through the real engine on RabbitMQ 4.3 (scripts/rabbitmq4.sh),
        // beside the ci and protected stacks (another broker, another lock).
        test: {
          name: 'e2e-rabbitmq-4.3',
          include: ['test/e2e/rabbitmq43-stack.test.ts'],
          globalSetup: ['test/support/local-brokers-lock.ts'],
          env: {
            RABBITMQ_INSTANCE: '4.3',
            RABBITMQ_URL: 'amqp://guest:guest@127.0.0.1:5743',
            RABBITMQ_MANAGEMENT_URL: 'http://127.0.0.1:15743',
          },
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        // The cluster stack through the real engine on the clusters of `scripts/brokers.sh cluster`,
        // with nodes killed during `pulumi up`; the helpers point at rabbit-1 and kafka-1. Beside the
        // stacks on the local brokers: the clusters are brokers of their own, with locks of their own.
        test: {
          name: 'e2e-cluster',
          include: ['test/e2e/cluster-stack.test.ts'],
          globalSetup: ['test/cluster/setup.ts'],
          env: {
            RABBITMQ_URL: 'amqp://guest:guest@127.0.0.1:5771',
            RABBITMQ_MANAGEMENT_URL: 'http://127.0.0.1:15771',
            KAFKA_BOOTSTRAP: '127.0.0.1:19092',
          },
          testTimeout: 600_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
