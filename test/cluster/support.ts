import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import amqplib from 'amqplib';
import { derivePlan, parsePolicy, type RetryPlan } from '../../policy';
import { mulberry32 } from '../../policy/random';
import { declareTopology, deleteTopology, managementApi } from '../../runtime/rabbitmq';

/**
 * The clusters of `scripts/brokers.sh cluster`: three RabbitMQ nodes and three Kafka brokers on
 * this machine. Tests kill and restart nodes through the same script a person would use.
 */

const run = promisify(execFile);

export const RABBIT_NODES = ['rabbit-1', 'rabbit-2', 'rabbit-3'] as const;
export type RabbitNode = (typeof RABBIT_NODES)[number];
export const KAFKA_NODES = ['kafka-1', 'kafka-2', 'kafka-3'] as const;
export type KafkaNode = (typeof KAFKA_NODES)[number];

const index = (node: string) => Number(node.slice(node.lastIndexOf('-') + 1));
export const amqpUrl = (node: RabbitNode) => `amqp://guest:guest@127.0.0.1:${5770 + index(node)}`;
export const managementUrl = (node: RabbitNode) => `http://127.0.0.1:${15770 + index(node)}`;
export const RABBIT_URLS = RABBIT_NODES.map(amqpUrl);
export const KAFKA_BROKERS = KAFKA_NODES.map((node) => `127.0.0.1:${19091 + index(node)}`);
/** kafka-2 is broker id 2. */
export const kafkaNodeOf = (brokerId: number) => `kafka-${brokerId}` as KafkaNode;

/** `scripts/brokers.sh cluster ACTION NODE`; returns how long it took. */
export async function cluster(
  action: 'kill-node' | 'start-node' | 'stop-node',
  node: string,
): Promise<number> {
  const started = Date.now();
  await run('bash', ['scripts/brokers.sh', 'cluster', action, node], { timeout: 300_000 });
  return Date.now() - started;
}

/**
 * Every node of one cluster running again, whatever a test left: a node frozen with SIGSTOP is
 * woken, a stopped or killed one started (the cluster scripts' `start` is idempotent).
 */
export async function restoreCluster(which: 'rabbitmq' | 'kafka'): Promise<void> {
  if (which === 'rabbitmq') {
    for (const node of RABBIT_NODES) {
      try {
        const pid = rabbitPid(node);
        if (pid > 0) process.kill(pid, 'SIGCONT');
      } catch {
        // no pid file or no such process: the node is not running, and start brings it up
      }
    }
  }
  await run('bash', [`scripts/${which}-cluster.sh`, 'start'], { timeout: 600_000 });
}

/** The pid of a RabbitMQ node's Erlang VM, from the pid file its script writes. */
export const rabbitPid = (node: RabbitNode) =>
  Number(readFileSync(`/var/lib/rabbitmq/instances/${node}/node.pid`, 'utf8').replace(/\D/g, ''));

/** A plan's topology declared and deleted through a node's AMQP and management endpoints. */
export async function rabbitTopology(
  plan: RetryPlan,
  node: RabbitNode,
  action: 'declare' | 'delete',
): Promise<void> {
  const management = managementApi({ url: managementUrl(node), username: 'guest', password: 'guest' });
  const connection = await amqplib.connect(amqpUrl(node));
  try {
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    if (action === 'declare') await declareTopology(channel, plan, management);
    else await deleteTopology(channel, plan, management).catch(() => undefined);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** Every node running? (`scripts/brokers.sh cluster status` exits 0 only then.) */
export async function clusterRunning(): Promise<boolean> {
  return run('bash', ['scripts/brokers.sh', 'cluster', 'status'], { timeout: 120_000 }).then(
    () => true,
    () => false,
  );
}

export function uniqueName(prefix: string): string {
  return `cl-${prefix}-${randomBytes(3).toString('hex')}`;
}

/**
 * A seeded random source for where the faults land. The seed is printed with the report, and
 * RETRY_TOPOLOGY_FAULT_SEED replays a run.
 */
export function faultRandom(): { seed: number; random: () => number } {
  const given = Number(process.env.RETRY_TOPOLOGY_FAULT_SEED);
  const seed = Number.isInteger(given) && given > 0 ? given : randomBytes(4).readUInt32BE(0);
  return { seed, random: mulberry32(seed) };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let value: T | undefined;
    try {
      value = await probe();
    } catch {
      value = undefined; // a node that is down does not answer yet
    }
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A quorum queue as the management API of a given node reports it. */
export interface QuorumQueueInfo {
  leader?: string;
  members?: string[];
  online?: string[];
  arguments?: Record<string, unknown>;
}

export async function quorumQueue(node: RabbitNode, queue: string, vhost = '/'): Promise<QuorumQueueInfo> {
  const response = await fetch(
    `${managementUrl(node)}/api/queues/${encodeURIComponent(vhost)}/${encodeURIComponent(queue)}`,
    {
      headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` },
      signal: AbortSignal.timeout(5_000),
    },
  );
  if (!response.ok) throw new Error(`management API on ${node}: HTTP ${response.status} for ${queue}`);
  return (await response.json()) as QuorumQueueInfo;
}

/** "rabbit-2@localhost" → "rabbit-2" */
export const nodeName = (erlangNode: string | undefined) =>
  (erlangNode ?? '').replace(/@.*/, '') as RabbitNode;

export interface Stats {
  count: number;
  min: number;
  p50: number;
  p99: number;
  max: number;
}

export function stats(values: readonly number[]): Stats {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    count: sorted.length,
    min: sorted[0] ?? 0,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted[sorted.length - 1] ?? 0,
  };
}

/**
 * The policy of a fault test: waits from a list, HTTP 503 transient, messages keyed by `id`, on
 * one cluster with everything replicated to its three nodes (RabbitMQ quorum queues with three
 * members; Kafka replication factor 3, min.insync.replicas 2, acks all).
 */
export function clusterPlan(
  name: string,
  consumer: string,
  delays: string[],
  target: 'rabbitmq' | 'kafka',
  ordering: 'none' | 'per-key' = 'none',
): RetryPlan {
  return derivePlan(
    parsePolicy({
      apiVersion: 'retry-topology/v1',
      kind: 'RetryPolicy',
      metadata: { name, environment: 'production' },
      spec: {
        consumer,
        ordering,
        maxAttempts: delays.length + 1,
        backoff: { type: 'list', delays },
        jitter: 'none',
        classify: { presets: ['http-transient'] },
        idempotency: { idempotent: true, key: 'id' },
        targets:
          target === 'rabbitmq'
            ? {
                rabbitmq: {
                  exchange: `${name}.in`,
                  declareExchange: true,
                  routingKey: 'work',
                  mode: 'ttl-queues',
                  brokerVersion: '3.10.8',
                  quorumReplicas: 3,
                  clusterSize: 3,
                },
              }
            : {
                kafka: {
                  topic: `${name}.in`,
                  declareTopic: true,
                  consumerGroup: `${name}.main`,
                  partitions: 3,
                  replicationFactor: 3,
                  minInSyncReplicas: 2,
                  acks: 'all',
                  clusterSize: 3,
                },
              },
      },
    }),
  );
}
