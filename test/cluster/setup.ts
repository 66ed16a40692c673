import { Kafka, logLevel } from 'kafkajs';
import type { TestProject } from 'vitest/node';
import { releaseLock, takeLock } from '../support/machine-lock';
import { KAFKA_BROKERS, managementUrl, restoreCluster } from './support';

/**
 * Vitest global setup for the projects that use the clusters: `cluster-rabbitmq` and
 * `cluster-kafka` (one cluster each) and `e2e-cluster` (both).
 *
 * - One run at a time per cluster and machine: the clusters have fixed ports, and a second run's
 *   kills would land in the first one's measurements (test/support/machine-lock.ts). Both are
 *   taken in the same order, so two runs cannot wait for each other.
 * - Every node up: a node an interrupted run left frozen (SIGSTOP) is woken, one it left killed
 *   is started (the cluster scripts' `start` is idempotent).
 * - Nothing left over: queues, exchanges, policies and topics named like the fault tests'
 *   (`cl-…`) or the cluster e2e's (`e2e-…`) are from a run that could not clean up, since no
 *   other run holds the lock.
 */

type Cluster = 'rabbitmq' | 'kafka';
const WAIT_FOR_LOCK_MS = 45 * 60_000;
const LEFTOVER = /^(cl|e2e)-[0-9a-z]+/;
const lockName = (cluster: Cluster) => `cluster-${cluster}`;

async function management(path: string, method = 'GET'): Promise<unknown> {
  const response = await fetch(`${managementUrl('rabbit-1')}/api${path}`, {
    method,
    headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` },
    signal: AbortSignal.timeout(15_000),
  });
  if (!response.ok && response.status !== 404)
    throw new Error(`management API ${method} ${path}: HTTP ${response.status}`);
  return method === 'GET' ? response.json() : undefined;
}

async function sweepLeftovers(cluster: Cluster): Promise<string[]> {
  const removed: string[] = [];
  if (cluster === 'rabbitmq') {
    for (const kind of ['queues', 'exchanges', 'policies'] as const) {
      const all = (await management(`/${kind}`)) as Array<{ name: string; vhost: string }>;
      for (const { name, vhost } of all.filter((each) => LEFTOVER.test(each.name))) {
        await management(`/${kind}/${encodeURIComponent(vhost)}/${encodeURIComponent(name)}`, 'DELETE');
        removed.push(name);
      }
    }
    return removed;
  }
  const admin = new Kafka({
    clientId: 'cluster-setup',
    brokers: KAFKA_BROKERS,
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((topic) => LEFTOVER.test(topic));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 60_000 });
    removed.push(...topics);
  } finally {
    await admin.disconnect();
  }
  return removed;
}

function clustersOf(project: TestProject): Cluster[] {
  if (project.name === 'cluster-rabbitmq') return ['rabbitmq'];
  if (project.name === 'cluster-kafka') return ['kafka'];
  return ['rabbitmq', 'kafka'];
}

export default async function setup(project: TestProject): Promise<() => void> {
  const held: Cluster[] = [];
  const release = () => {
    for (const cluster of held) releaseLock(lockName(cluster));
  };
  try {
    for (const cluster of clustersOf(project)) {
      if (await takeLock(lockName(cluster), `the ${cluster} cluster`, WAIT_FOR_LOCK_MS)) continue;
      held.push(cluster);
      const started = Date.now();
      await restoreCluster(cluster);
      const removed = await sweepLeftovers(cluster);
      console.log(
        `${cluster} cluster: up in ${((Date.now() - started) / 1_000).toFixed(1)} s` +
          (removed.length > 0 ? `; removed ${removed.length} leftovers of an earlier run` : ''),
      );
    }
  } catch (error) {
    release();
    throw error;
  }
  return release;
}
