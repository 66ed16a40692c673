import { kafka } from '../integration/kafka/support';
import { managementCall } from './rabbitmq-readback';

/**
 * The last-resort cleanup of one e2e run: deletes every RabbitMQ queue, exchange and policy and
 * every Kafka topic whose name contains the run's random prefix. It catches what `pulumi destroy`
 * cannot see, e.g. a resource created by an update that was killed before it saved its state.
 * Safe on shared brokers because the prefix (e2e-<6 hex digits>) belongs to one run only.
 *
 *   npx tsx test/e2e/sweep.ts <prefix>     (scripts/pulumi-e2e.sh's trap runs this)
 */

export async function sweep(prefix: string): Promise<string[]> {
  if (!/^e2e-[0-9a-f]{6}$/.test(prefix)) throw new Error(`not an e2e run prefix: "${prefix}"`);
  const removed: string[] = [];
  for (const kind of ['queues', 'exchanges', 'policies'] as const) {
    const all = (await managementCall<Array<{ name: string; vhost: string }>>(`/${kind}`)) ?? [];
    for (const { name, vhost } of all.filter((each) => each.name.includes(prefix))) {
      await managementCall(`/${kind}/${encodeURIComponent(vhost)}/${encodeURIComponent(name)}`, 'DELETE');
      removed.push(`${kind} ${name}`);
    }
  }
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((name) => name.includes(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    removed.push(...topics.map((topic) => `topic ${topic}`));
  } finally {
    await admin.disconnect();
  }
  return removed;
}

if (require.main === module) {
  sweep(process.argv[2] ?? '').then(
    (removed) => {
      console.log(removed.length > 0 ? `swept: ${removed.join(', ')}` : 'swept: nothing was left');
    },
    (error: unknown) => {
      console.error(`sweep failed: ${String(error)}`);
      process.exit(1);
    },
  );
}
