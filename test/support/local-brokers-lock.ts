import type { TestProject } from 'vitest/node';
import { releaseLock, takeLock } from './machine-lock';

/**
 * Vitest global setup for the projects on the local brokers (integration, rabbitmq-4.x, e2e): one
 * test run at a time on each broker of this machine. Some of their tests restart a broker or fill
 * its queues, and a second `npm test` at the same time would fail both; the second waits for the
 * first instead. The RabbitMQ 4.0 and 4.3 nodes are brokers of their own, so their projects take
 * locks of their own and run beside the ones on RabbitMQ 3.10 and Kafka (scripts/test.sh).
 */
export function lockOf(project: string): string {
  if (project === 'rabbitmq-4.0') return 'local-rabbitmq-4.0';
  if (project === 'rabbitmq-4.3' || project === 'e2e-rabbitmq-4.3') return 'local-rabbitmq-4.3';
  return 'local-brokers';
}

export default async function setup(project: TestProject): Promise<() => void> {
  const lock = lockOf(project.name);
  const held = !(await takeLock(lock, `the local brokers (${lock})`, 60 * 60_000));
  return () => {
    if (held) releaseLock(lock);
  };
}
