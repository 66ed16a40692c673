import type { RabbitPolicySpec } from '../../policy/plan/types';
import { RetryTopologyError } from '../errors';

/**
 * The few RabbitMQ management HTTP API calls declareTopology and the tests need. Policies cannot
 * be declared over AMQP, and the plan keeps every mutable queue setting in a policy.
 */
export interface ManagementApi {
  putPolicy(vhost: string, policy: RabbitPolicySpec): Promise<void>;
  deletePolicy(vhost: string, name: string): Promise<void>;
  /** A queue as the broker sees it (arguments, effective policy definition), or undefined. */
  getQueue(vhost: string, name: string): Promise<Record<string, unknown> | undefined>;
  getPolicy(vhost: string, name: string): Promise<Record<string, unknown> | undefined>;
  /** The vhosts that have a queue of exactly this name. */
  vhostsOfQueue(name: string): Promise<string[]>;
}

export function managementApi(options: { url: string; username: string; password: string }): ManagementApi {
  const auth = `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`;
  const base = options.url.replace(/\/$/, '');
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}/api${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status === 404 && method !== 'PUT') return undefined;
    if (!response.ok) {
      throw new RetryTopologyError(
        'management-api',
        `management API ${method} ${path}: HTTP ${response.status} ${await response.text()}`,
      );
    }
    const text = await response.text();
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const v = (vhost: string) => encodeURIComponent(vhost);
  return {
    putPolicy: async (vhost, policy) => {
      await call('PUT', `/policies/${v(vhost)}/${encodeURIComponent(policy.name)}`, {
        pattern: policy.pattern,
        definition: policy.definition,
        priority: policy.priority,
        'apply-to': policy.applyTo,
      });
    },
    deletePolicy: async (vhost, name) => {
      await call('DELETE', `/policies/${v(vhost)}/${encodeURIComponent(name)}`);
    },
    getQueue: (vhost, name) => call('GET', `/queues/${v(vhost)}/${encodeURIComponent(name)}`),
    getPolicy: (vhost, name) => call('GET', `/policies/${v(vhost)}/${encodeURIComponent(name)}`),
    vhostsOfQueue: async (name) => {
      // The paginated listing filters by name on the broker (3.10.8), so this stays one small reply.
      const page = (await call(
        'GET',
        `/queues?page=1&page_size=100&use_regex=false&columns=name,vhost&name=${encodeURIComponent(name)}`,
      )) as { items?: Array<{ name?: unknown; vhost?: unknown }> } | undefined;
      return (page?.items ?? [])
        .filter((item) => item.name === name && typeof item.vhost === 'string')
        .map((item) => item.vhost as string);
    },
  };
}
