import amqplib from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetryTopologyError } from '../../../runtime';
import { declareTopology, deleteTopology } from '../../../runtime/rabbitmq';
import { AMQP_URL, connect, MANAGEMENT_URL, management, rabbitPlan, uniqueName } from './support';

const auth = { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` };

async function http(method: string, path: string, body?: unknown): Promise<void> {
  const response = await fetch(`${MANAGEMENT_URL}/api${path}`, {
    method,
    headers: { ...auth, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}`);
}

/** A vhost of this test's own, where guest may do everything. */
const vhost = uniqueName('vhost');
beforeAll(async () => {
  await http('PUT', `/vhosts/${encodeURIComponent(vhost)}`);
  await http('PUT', `/permissions/${encodeURIComponent(vhost)}/guest`, {
    configure: '.*',
    write: '.*',
    read: '.*',
  });
});
afterAll(async () => {
  await http('DELETE', `/vhosts/${encodeURIComponent(vhost)}`);
});

function codeOf(error: unknown): string | undefined {
  return error instanceof RetryTopologyError ? error.code : undefined;
}

describe('declareTopology and the vhost on a real RabbitMQ', () => {
  it('refuses a channel in another vhost than the plan’s, before writing anything', async () => {
    const plan = rabbitPlan(uniqueName('vh-other'), {}, { vhost });
    const broker = await connect(); // the default vhost "/"
    try {
      const error = await declareTopology(broker.channel, plan, management).catch((thrown) => thrown);
      expect(codeOf(error)).toBe('vhost-mismatch');
      expect(String(error.message)).toContain(`"${vhost}"`);
      expect(String(error.message)).toContain('vhost "/"');
      // No policy written into the plan's vhost, no queue declared in the channel's.
      for (const policy of plan.targets.rabbitmq?.policies ?? [])
        expect(await management.getPolicy(vhost, policy.name)).toBeUndefined();
      expect(await management.getQueue('/', plan.targets.rabbitmq?.mainQueue ?? '')).toBeUndefined();
    } finally {
      // Should the check ever let it through, leave nothing behind in the shared vhost.
      const admin = await connect();
      for (const queue of plan.targets.rabbitmq?.queues ?? []) await admin.channel.deleteQueue(queue.name);
      for (const exchange of plan.targets.rabbitmq?.exchanges ?? [])
        await admin.channel.deleteExchange(exchange.name);
      await admin.close();
      await broker.close();
    }
  });

  it('refuses the other way round too, and so does deleteTopology', async () => {
    const plan = rabbitPlan(uniqueName('vh-default'));
    const connection = await amqplib.connect(`${AMQP_URL}/${encodeURIComponent(vhost)}`);
    try {
      const channel = await connection.createChannel();
      const declared = await declareTopology(channel, plan, management).catch((thrown) => thrown);
      expect(codeOf(declared)).toBe('vhost-mismatch');
      const deleted = await deleteTopology(channel, plan, management).catch((thrown) => thrown);
      expect(codeOf(deleted)).toBe('vhost-mismatch');
    } finally {
      await connection.close();
    }
  });

  it('declares in the plan’s vhost when the channel is there', async () => {
    const plan = rabbitPlan(uniqueName('vh-same'), {}, { vhost });
    const connection = await amqplib.connect(`${AMQP_URL}/${encodeURIComponent(vhost)}`);
    try {
      const channel = await connection.createChannel();
      await declareTopology(channel, plan, management);
      const rabbit = plan.targets.rabbitmq;
      expect(await management.getQueue(vhost, rabbit?.mainQueue ?? '')).toBeDefined();
      expect(await management.getPolicy(vhost, rabbit?.policies[0]?.name ?? '')).toBeDefined();
      await deleteTopology(channel, plan, management);
    } finally {
      await connection.close();
    }
  });
});
