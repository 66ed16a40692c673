import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import amqplib, { type ChannelModel, type ConfirmChannel, type GetMessage } from 'amqplib';
import type { PolicyInput, RetryPlan } from '../../../policy';
import { parseVersion, versionAtLeast } from '../../../policy/broker-version';
import { declareTopology, deleteTopology, managementApi } from '../../../runtime/rabbitmq';
import { billingPlanFor } from '../../support/billing-policy';

/**
 * The broker under test. The same suites run against RabbitMQ 3.10 (the host's, the default),
 * 4.0 and 4.3 (scripts/rabbitmq4.sh); vitest.config.mts points each project at one of them with
 * RABBITMQ_INSTANCE, RABBITMQ_URL and RABBITMQ_MANAGEMENT_URL.
 */
export const INSTANCE = process.env.RABBITMQ_INSTANCE ?? '3.10';
export const AMQP_URL = process.env.RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
export const MANAGEMENT_URL = process.env.RABBITMQ_MANAGEMENT_URL ?? 'http://127.0.0.1:15672';
export const management = managementApi({ url: MANAGEMENT_URL, username: 'guest', password: 'guest' });

/** The version the broker under test reports, as [major, minor, patch]. */
export async function brokerVersion(): Promise<{
  text: string;
  at: (minimum: readonly number[]) => boolean;
}> {
  const response = await fetch(`${MANAGEMENT_URL}/api/overview`, {
    headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` },
  });
  const { rabbitmq_version: text } = (await response.json()) as { rabbitmq_version: string };
  const have = parseVersion(text) ?? [];
  return { text, at: (minimum) => versionAtLeast(have, minimum) };
}

/** Restarts the broker under test: the host's 3.10.8 or a 4.x node of scripts/rabbitmq4.sh. Data survives. */
export function restartBroker(): void {
  const [script, args] =
    INSTANCE === '3.10'
      ? ['scripts/rabbitmq.sh', ['restart']]
      : ['scripts/rabbitmq4.sh', ['restart', INSTANCE]];
  execFileSync('bash', [script, ...args], { stdio: 'inherit' });
}

/** A fresh name per test, so tests never see each other's queues. */
export function uniqueName(prefix: string): string {
  return `it-${prefix}-${randomBytes(3).toString('hex')}`;
}

/** The billing policy on RabbitMQ: 4 attempts, waits 1 s, 2 s, 4 s, no jitter. */
export function rabbitPlan(
  name: string,
  spec: Partial<PolicyInput['spec']> = {},
  target: Record<string, unknown> = {},
): RetryPlan {
  const rabbitmq = {
    exchange: `${name}.ordering`,
    declareExchange: true,
    routingKey: 'order.placed',
    mode: 'ttl-queues',
    brokerVersion: '3.10.8',
    ...target,
  } as NonNullable<PolicyInput['spec']['targets']['rabbitmq']>;
  return billingPlanFor(name, { rabbitmq }, spec);
}

export interface Broker {
  connection: ChannelModel;
  channel: ConfirmChannel;
  close(): Promise<void>;
}

export async function connect(): Promise<Broker> {
  const connection = await amqplib.connect(AMQP_URL);
  const channel = await connection.createConfirmChannel();
  // A test that closes the connection on purpose must not crash the process.
  connection.on('error', () => {});
  channel.on('error', () => {});
  return {
    connection,
    channel,
    close: async () => {
      await connection.close().catch(() => undefined);
    },
  };
}

/** Declares the plan's topology on a channel of its own, and returns how to remove it. */
export async function withTopology(plan: RetryPlan): Promise<() => Promise<void>> {
  const admin = await connect();
  await declareTopology(admin.channel, plan, management);
  return async () => {
    await deleteTopology(admin.channel, plan, management).catch(() => undefined);
    await admin.close();
  };
}

export async function publish(
  broker: Broker,
  plan: RetryPlan,
  body: unknown,
  properties: Record<string, unknown> = {},
): Promise<void> {
  const source = plan.targets.rabbitmq?.exchanges.find((exchange) => exchange.role === 'source');
  const binding = plan.targets.rabbitmq?.bindings.find((each) => each.source === source?.name);
  await new Promise<void>((resolve, reject) =>
    broker.channel.publish(
      source?.name ?? '',
      binding?.routingKey ?? '',
      Buffer.from(JSON.stringify(body)),
      { persistent: true, ...properties },
      (error) => (error ? reject(error) : resolve()),
    ),
  );
}

/** Every message now in a queue, taken with basic.get (the management counts lag by ~5 s). */
export async function drain(broker: Broker, queue: string): Promise<GetMessage[]> {
  const out: GetMessage[] = [];
  for (;;) {
    const message = await broker.channel.get(queue, { noAck: true });
    if (!message) return out;
    out.push(message);
  }
}

/**
 * Waits until a queue has given at least `count` messages, then returns all it gave (basic.get, so
 * nothing lags). Messages taken on an earlier probe are kept: a second one still on its way (its
 * dead-letter publish not yet confirmed) is waited for, not missed.
 */
export async function takeWhenThere(
  broker: Broker,
  queue: string,
  what: string,
  count = 1,
): Promise<GetMessage[]> {
  const taken: GetMessage[] = [];
  return waitFor(
    async () => {
      taken.push(...(await drain(broker, queue)));
      return taken.length >= count ? taken : undefined;
    },
    30_000,
    what,
  );
}

export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function body(message: { content: Buffer }): { id: string; [key: string]: unknown } {
  return JSON.parse(message.content.toString()) as { id: string };
}

export class InvalidCurrencyError extends Error {}

export function http503(): Error {
  return Object.assign(new Error('503 Service Unavailable from payment provider'), {
    name: 'HttpRequestError',
    status: 503,
  });
}
