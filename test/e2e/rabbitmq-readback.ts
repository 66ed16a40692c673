import { isDeepStrictEqual } from 'node:util';
import type { RabbitMqPlan } from '../../policy';
import { management, waitFor } from '../integration/rabbitmq/support';

/**
 * What RabbitMQ's management API reports about a plan's entities, in the same shape as
 * `plannedRabbit` builds from the plan, so a test compares the two with one `toEqual`.
 */

const MANAGEMENT_URL = (process.env.RABBITMQ_MANAGEMENT_URL ?? 'http://127.0.0.1:15672').replace(/\/$/, '');
const AUTH = `Basic ${Buffer.from('guest:guest').toString('base64')}`;
const enc = encodeURIComponent;

/** Management API request; undefined on 404. (runtime/rabbitmq's client has no exchange or binding calls.) */
export async function managementCall<T>(
  path: string,
  method: 'GET' | 'DELETE' = 'GET',
): Promise<T | undefined> {
  const response = await fetch(`${MANAGEMENT_URL}/api${path}`, { method, headers: { authorization: AUTH } });
  if (response.status === 404) return undefined;
  if (!response.ok) throw new Error(`management API ${method} ${path}: HTTP ${response.status}`);
  const text = await response.text();
  return (text ? JSON.parse(text) : {}) as T;
}

export interface RabbitReadback {
  queues: unknown[];
  policies: unknown[];
  exchanges: unknown[];
  /** Bindings to the plan's queues, without the implicit one from the default exchange; sorted. */
  bindings: string[];
}

const bindingKey = (source: string, destination: string, type: string, routingKey: string) =>
  `${source} → ${type} ${destination} (${routingKey})`;

/** The plan's RabbitMQ entities as the broker should report them. */
export function plannedRabbit(rabbit: RabbitMqPlan): RabbitReadback {
  const definition = (name: string) => rabbit.policies.find((policy) => policy.name === name)?.definition;
  return {
    queues: rabbit.queues.map((spec) => ({
      name: spec.name,
      type: 'quorum',
      durable: spec.durable,
      autoDelete: spec.autoDelete,
      arguments: spec.arguments,
      policy: spec.policy,
      // Compared with toEqual, so a TTL that arrived as text would differ (the broker refuses those).
      effectivePolicy: definition(spec.policy),
    })),
    policies: rabbit.policies.map(({ name, pattern, priority, applyTo, definition }) => ({
      name,
      pattern,
      priority,
      applyTo,
      definition,
    })),
    exchanges: rabbit.exchanges.map(({ name, type, durable, autoDelete }) => ({
      name,
      type,
      durable,
      autoDelete,
    })),
    bindings: rabbit.bindings
      .map((each) => bindingKey(each.source, each.destination, each.destinationType, each.routingKey))
      .sort(),
  };
}

interface QueueInfo {
  type: string;
  durable: boolean;
  auto_delete: boolean;
  arguments: Record<string, unknown>;
  policy?: string;
  effective_policy_definition?: Record<string, unknown>;
}

interface StoredPolicy {
  definition: Record<string, unknown>;
}

/**
 * A queue's record once its effective policy is the stored one. The management stats that carry
 * it are refreshed every ~5 s; after a node restart a quorum queue reapplies a policy changed
 * meanwhile only on its leader's next tick. So this waits up to 60 s for the two to agree, then
 * returns what the broker reports, agreeing or not, for the caller to compare.
 */
async function settledQueue(vhost: string, name: string, policy: string | undefined): Promise<QueueInfo> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const queue = await waitFor(
      async () => {
        const found = await managementCall<QueueInfo>(`/queues/${vhost}/${enc(name)}`);
        return found && 'effective_policy_definition' in found ? found : undefined;
      },
      30_000,
      `management stats for queue ${name}`,
    );
    const stored =
      policy === undefined
        ? undefined
        : await managementCall<StoredPolicy>(`/policies/${vhost}/${enc(policy)}`);
    if (isDeepStrictEqual(queue.effective_policy_definition ?? {}, stored?.definition ?? {})) return queue;
    if (Date.now() > deadline) return queue;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** What the broker reports for the plan's entities. */
export async function readRabbit(rabbit: RabbitMqPlan): Promise<RabbitReadback> {
  const vhost = enc(rabbit.vhost);
  const out: RabbitReadback = { queues: [], policies: [], exchanges: [], bindings: [] };
  for (const spec of rabbit.queues) {
    const queue = await settledQueue(vhost, spec.name, spec.policy);
    out.queues.push({
      name: spec.name,
      type: queue.type,
      durable: queue.durable,
      autoDelete: queue.auto_delete,
      arguments: queue.arguments,
      policy: queue.policy,
      effectivePolicy: queue.effective_policy_definition,
    });
    const bindings = await managementCall<Array<Record<string, string>>>(
      `/queues/${vhost}/${enc(spec.name)}/bindings`,
    );
    for (const each of bindings ?? []) {
      if (each.source === '') continue;
      out.bindings.push(
        bindingKey(
          each.source ?? '',
          each.destination ?? '',
          each.destination_type ?? '',
          each.routing_key ?? '',
        ),
      );
    }
  }
  out.bindings.sort();
  for (const spec of rabbit.policies) {
    const stored = await management.getPolicy(rabbit.vhost, spec.name);
    out.policies.push(
      stored && {
        name: stored.name,
        pattern: stored.pattern,
        priority: stored.priority,
        applyTo: stored['apply-to'],
        definition: stored.definition,
      },
    );
  }
  for (const spec of rabbit.exchanges) {
    const found = await managementCall<Record<string, unknown>>(`/exchanges/${vhost}/${enc(spec.name)}`);
    out.exchanges.push(
      found && { name: found.name, type: found.type, durable: found.durable, autoDelete: found.auto_delete },
    );
  }
  return out;
}

/** Which of the plan's queues, exchanges and policies are still on the broker. */
export async function rabbitLeftovers(rabbit: RabbitMqPlan): Promise<string[]> {
  const vhost = enc(rabbit.vhost);
  const entities = [
    ...rabbit.queues.map((each) => ['queues', each.name]),
    ...rabbit.exchanges.map((each) => ['exchanges', each.name]),
    ...rabbit.policies.map((each) => ['policies', each.name]),
  ];
  const left: string[] = [];
  for (const [kind, name] of entities) {
    if (await managementCall(`/${kind}/${vhost}/${enc(name ?? '')}`)) left.push(`${kind} ${name}`);
  }
  return left;
}
