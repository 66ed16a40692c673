import { defineConfig } from 'vitest/config';

// Three projects: `unit` needs nothing running; `integration` needs the local brokers that
// scripts/brokers.sh starts (npm test does that first); `e2e` needs those brokers and the Pulumi
// engine (scripts/pulumi-e2e.sh runs it; docs/pulumi-e2e.md).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**', 'test/e2e/**'],
          // Some tests load the built package (dist/) the way users do.
          globalSetup: ['test/support/build-once.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // One broker, shared queues: files run one at a time so they do not disturb each other.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Each step runs `pulumi` (5–15 s here) or waits for broker TTLs; a loaded CI machine is slower.
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
