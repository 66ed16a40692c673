import { kafka } from '../integration/kafka/support';
import { managementCall } from './rabbitmq-readback';

/**
 * Everything of one run on both brokers, found by the run's prefix rather than by the plan, so a
 * stray entity (a queue of a half-applied rename, a policy left pointing elsewhere) shows up too.
 * Message counts are left out: consumers keep running while it is taken.
 */
export interface BrokerState {
  queues: string[];
  exchanges: string[];
  /** name → the definition the broker stores (what dead-letters where, TTLs, limits). */
  policies: Record<string, unknown>;
  /** `source → destination (routing key)`, without the default exchange's implicit ones. */
  bindings: string[];
  topics: string[];
}

export async function brokerState(prefix: string): Promise<BrokerState> {
  const mine = (name: string | undefined) => (name ?? '').includes(prefix);
  const queues = (await managementCall<Array<{ name: string }>>('/queues')) ?? [];
  const exchanges = (await managementCall<Array<{ name: string }>>('/exchanges')) ?? [];
  const policies = (await managementCall<Array<{ name: string; definition: unknown }>>('/policies')) ?? [];
  const bindings =
    (await managementCall<Array<{ source: string; destination: string; routing_key: string }>>(
      '/bindings',
    )) ?? [];
  const admin = kafka.admin();
  await admin.connect();
  try {
    return {
      queues: queues
        .map((each) => each.name)
        .filter(mine)
        .sort(),
      exchanges: exchanges
        .map((each) => each.name)
        .filter(mine)
        .sort(),
      policies: Object.fromEntries(
        policies
          .filter((each) => mine(each.name))
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((each) => [each.name, each.definition]),
      ),
      bindings: bindings
        .filter((each) => each.source !== '' && (mine(each.source) || mine(each.destination)))
        .map((each) => `${each.source} → ${each.destination} (${each.routing_key})`)
        .sort(),
      topics: (await admin.listTopics()).filter(mine).sort(),
    };
  } finally {
    await admin.disconnect();
  }
}

/** Messages in a queue now, without taking them (basic.get would; the management counts lag ~5 s). */
export async function queueDepth(queue: string, vhost = '/'): Promise<number | undefined> {
  const found = await managementCall<{ messages?: number }>(
    `/queues/${encodeURIComponent(vhost)}/${encodeURIComponent(queue)}`,
  );
  return found?.messages;
}
