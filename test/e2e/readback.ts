import { ConfigResourceTypes } from 'kafkajs';
import type { KafkaPlan, RabbitMqPlan } from '../../policy';
import { kafka } from '../integration/kafka/support';
import { management, waitFor } from '../integration/rabbitmq/support';

/**
 * What the brokers report about a plan's entities, in the plan's own shape, so a test compares
 * the two with one `toEqual`. RabbitMQ through the management API, Kafka through the admin client.
 */

const MANAGEMENT_URL = (process.env.RABBITMQ_MANAGEMENT_URL ?? 'http://127.0.0.1:15672').replace(/\/$/, '');
const AUTH = `Basic ${Buffer.from('guest:guest').toString('base64')}`;

/** GET on the management API; undefined on 404. (runtime/rabbitmq's client has no exchange or binding calls.) */
export async function managementGet<T>(path: string): Promise<T | undefined> {
  const response = await fetch(`${MANAGEMENT_URL}/api${path}`, { headers: { authorization: AUTH } });
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`management API GET ${path}: HTTP ${response.status}`);
  return (await response.json()) as T;
}

const enc = encodeURIComponent;

export interface RabbitQueueReadback {
  name: string;
  type: unknown;
  durable: unknown;
  autoDelete: unknown;
  arguments: unknown;
  policy: unknown;
  effectivePolicy: unknown;
}

/**
 * Each planned queue as the broker sees it. The effective policy appears once the management stats
 * catch up (every ~5 s on 3.10.8), so this waits for it.
 */
export async function readQueues(rabbit: RabbitMqPlan): Promise<RabbitQueueReadback[]> {
  const out: RabbitQueueReadback[] = [];
  for (const spec of rabbit.queues) {
    const queue = await waitFor(
      async () => {
        const found = await management.getQueue(rabbit.vhost, spec.name);
        return found && 'effective_policy_definition' in found ? found : undefined;
      },
      30_000,
      `management stats for queue ${spec.name}`,
    );
    out.push({
      name: spec.name,
      type: queue.type,
      durable: queue.durable,
      autoDelete: queue.auto_delete,
      arguments: queue.arguments,
      policy: queue.policy,
      effectivePolicy: queue.effective_policy_definition,
    });
  }
  return out;
}

export async function readPolicies(rabbit: RabbitMqPlan): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const spec of rabbit.policies) {
    const stored = await management.getPolicy(rabbit.vhost, spec.name);
    out.push(
      stored && {
        name: stored.name,
        pattern: stored.pattern,
        priority: stored.priority,
        applyTo: stored['apply-to'],
        definition: stored.definition,
      },
    );
  }
  return out;
}

interface ExchangeInfo {
  name: string;
  type: string;
  durable: boolean;
  auto_delete: boolean;
}

export async function readExchanges(rabbit: RabbitMqPlan): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const spec of rabbit.exchanges) {
    const found = await managementGet<ExchangeInfo>(`/exchanges/${enc(rabbit.vhost)}/${enc(spec.name)}`);
    out.push(
      found && { name: found.name, type: found.type, durable: found.durable, autoDelete: found.auto_delete },
    );
  }
  return out;
}

interface BindingInfo {
  source: string;
  destination: string;
  destination_type: string;
  routing_key: string;
}

/** Every binding to the plan's queues except the implicit one from the default exchange. */
export async function readBindings(rabbit: RabbitMqPlan): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const queue of rabbit.queues) {
    const found = await managementGet<BindingInfo[]>(
      `/queues/${enc(rabbit.vhost)}/${enc(queue.name)}/bindings`,
    );
    for (const binding of found ?? []) {
      if (binding.source === '') continue;
      out.push({
        source: binding.source,
        destination: binding.destination,
        destinationType: binding.destination_type,
        routingKey: binding.routing_key,
      });
    }
  }
  return out;
}

/** Which of the plan's queues, exchanges and policies are still on the broker. */
export async function rabbitLeftovers(rabbit: RabbitMqPlan): Promise<string[]> {
  const left: string[] = [];
  for (const queue of rabbit.queues) {
    if (await management.getQueue(rabbit.vhost, queue.name)) left.push(`queue ${queue.name}`);
  }
  for (const exchange of rabbit.exchanges) {
    const path = `/exchanges/${enc(rabbit.vhost)}/${enc(exchange.name)}`;
    if (await managementGet(path)) left.push(`exchange ${exchange.name}`);
  }
  for (const policy of rabbit.policies) {
    if (await management.getPolicy(rabbit.vhost, policy.name)) left.push(`policy ${policy.name}`);
  }
  return left;
}

export interface TopicReadback {
  name: string;
  partitions: number;
  replicationFactor: number;
  config: Record<string, string>;
}

/** Each declared topic of the plan: partition count, replicas per partition, and the planned config keys. */
export async function readTopics(target: KafkaPlan): Promise<Array<TopicReadback | string>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const present = new Set(await admin.listTopics());
    const out: Array<TopicReadback | string> = [];
    for (const spec of target.topics.filter((topic) => topic.declare)) {
      if (!present.has(spec.name)) {
        out.push(`${spec.name} is missing`);
        continue;
      }
      const { topics } = await admin.fetchTopicMetadata({ topics: [spec.name] });
      const partitions = topics[0]?.partitions ?? [];
      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [
          { type: ConfigResourceTypes.TOPIC, name: spec.name, configNames: Object.keys(spec.config) },
        ],
      });
      const entries = described.resources[0]?.configEntries ?? [];
      out.push({
        name: spec.name,
        partitions: partitions.length,
        replicationFactor: Math.max(0, ...partitions.map((partition) => partition.replicas.length)),
        config: Object.fromEntries(entries.map((entry) => [entry.configName, entry.configValue])),
      });
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}

/** The plan's topics still listed by the broker. */
export async function kafkaLeftovers(target: KafkaPlan): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const present = new Set(await admin.listTopics());
    return target.topics.map((topic) => topic.name).filter((name) => present.has(name));
  } finally {
    await admin.disconnect();
  }
}
