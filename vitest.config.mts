import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs nothing running; `integration` needs the local brokers that
// scripts/brokers.sh starts (npm test does that first).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**'],
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
    ],
  },
});
