import { releaseLock, takeLock } from './machine-lock';

/**
 * Vitest global setup for the projects on the local brokers (integration, rabbitmq-4.x, e2e): one
 * test run at a time on this machine. Some of their tests restart a broker or fill its queues, and
 * a second `npm test` at the same time would fail both; the second waits for the first instead.
 */
const LOCK = 'local-brokers';

export default async function setup(): Promise<() => void> {
  const held = !(await takeLock(LOCK, 'the local brokers', 60 * 60_000));
  return () => {
    if (held) releaseLock(LOCK);
  };
}
