import { randomBytes } from 'node:crypto';
import { type Admin, type Consumer, type ConsumerConfig, Kafka, logLevel } from 'kafkajs';
import type { KafkaPlan, PolicyInput, RetryPlan } from '../../../policy';
import type { MeterLike } from '../../../runtime';
import {
  type ConsumedMessage,
  declareKafkaTopology,
  type KafkaRetry,
  type KafkaRetryOptions,
} from '../../../runtime/kafka';
import { createKafkaRetryWithHooks } from '../../../runtime/kafka/kafka-retry';
import type { KafkaTestHooks } from '../../../runtime/kafka/options';
import { billingPlanFor } from '../../support/billing-policy';
import {
  BROKERS,
  type ConsumerSettings,
  FAST,
  type Kit,
  type KitAdmin,
  type KitConsumer,
  type KitProducer,
  kit,
  timingsOf,
} from '../../support/kafka-kit';

export { BROKERS, FAST };

/**
 * The tests' own KafkaJS client, for what is checked rather than tested: reading topics back,
 * committed offsets, topic configs, cleaning up. The runtime runs on the client the kit names
 * (KAFKA_CLIENT), and so do the producers and consumers a test hands it.
 */
export const kafka = new Kafka({
  clientId: 'retry-topology-it',
  brokers: BROKERS,
  logLevel: logLevel.NOTHING,
});

/** A fresh name per test run: other engineers' tests share the broker. */
export function uniqueName(prefix: string): string {
  return `it-kafka-${prefix}-${randomBytes(3).toString('hex')}`;
}

/** The billing policy on Kafka: 4 attempts, waits 1 s, 2 s, 4 s, no jitter, 3 partitions. */
export function kafkaPlan(
  name: string,
  spec: Partial<PolicyInput['spec']> = {},
  target: Record<string, unknown> = {},
): RetryPlan {
  const kafka = {
    topic: `${name}.orders`,
    consumerGroup: `${name}.billing`,
    partitions: 3,
    declareTopic: true,
    replicationFactor: 1,
    minInSyncReplicas: 1,
    ...target,
  } as NonNullable<PolicyInput['spec']['targets']['kafka']>;
  return billingPlanFor(name, { kafka }, spec);
}

export function kafkaOf(plan: RetryPlan): KafkaPlan {
  const target = plan.targets.kafka;
  if (!target) throw new Error('the plan has no kafka target');
  return target;
}

/** Everything a test opens, closed in reverse order by `close`; topics and groups deleted. */
export class Harness {
  /** KafkaJS, for checking what the broker holds and cleaning up. */
  readonly admin: Admin = kafka.admin();
  private client!: Kit;
  /** The clients under test (KAFKA_CLIENT): what the runtime is given. */
  clientAdmin!: KitAdmin;
  producer!: KitProducer;
  private readonly closers: Array<() => Promise<unknown>> = [];

  constructor(readonly plan: RetryPlan) {}

  get target(): KafkaPlan {
    return kafkaOf(this.plan);
  }

  get kit(): Kit {
    return this.client;
  }

  /** Connects the clients; `declare: false` leaves the topics to the test. */
  async open(options: { declare?: boolean } = {}): Promise<this> {
    this.client = await kit();
    this.clientAdmin = this.client.admin();
    this.producer = this.client.producer();
    await this.admin.connect();
    await Promise.all([this.clientAdmin.connect(), this.producer.connect()]);
    if (options.declare ?? true) {
      await declareKafkaTopology(this.clientAdmin, this.plan, { client: this.client.client });
    }
    return this;
  }

  /** A connected KafkaJS consumer in `groupId` for checks, disconnected on close. */
  async consumer(groupId: string, config: Partial<ConsumerConfig> = {}): Promise<Consumer> {
    const consumer = kafka.consumer({ groupId, ...(FAST as Partial<ConsumerConfig>), ...config });
    await consumer.connect();
    this.closers.push(() => consumer.disconnect());
    return consumer;
  }

  /** A connected consumer of the client under test, disconnected on close. */
  async clientConsumer(groupId: string, settings: ConsumerSettings = {}): Promise<KitConsumer> {
    const consumer = this.client.consumer(groupId, { ...FAST, ...settings });
    await consumer.connect();
    this.closers.push(() => consumer.disconnect());
    return consumer;
  }

  /**
   * Without key order, wired by hand: the runtime with both consumers running; `stop` ends it
   * early (a process going away), else close does.
   */
  async start(
    options: Omit<KafkaRetryOptions, 'plan' | 'producer'> & {
      producer?: KafkaRetryOptions['producer'];
    } & KafkaTestHooks,
    consumers: { main?: ConsumerSettings; retry?: ConsumerSettings } = {},
  ): Promise<Instance> {
    const client = this.client;
    const retry = createKafkaRetryWithHooks({
      plan: this.plan,
      producer: this.producer,
      admin: this.clientAdmin,
      client: client.client,
      fromBeginning: true,
      ...options,
    });
    const main = client.consumer(this.target.consumerGroup, {
      ...FAST,
      fromBeginning: true,
      ...consumers.main,
    });
    const retrying = client.consumer(this.target.retryConsumerGroup, {
      ...FAST,
      fromBeginning: true,
      ...consumers.retry,
    });
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await retry.stop();
      await Promise.all([main.disconnect(), retrying.disconnect()]);
    };
    this.closers.push(stop);
    await Promise.all([main.connect(), retrying.connect()]);
    await retry.runMain(main);
    await retry.runRetry(retrying);
    return { retry, main, retrying, stop };
  }

  /**
   * The runtime making its consumers from the client
   * (run(kafka)): with per-key order, one that reads the whole chain. `stop` ends it early, else close does.
   */
  async startChain(
    options: Omit<KafkaRetryOptions, 'plan' | 'producer'> & {
      producer?: KafkaRetryOptions['producer'];
    } & KafkaTestHooks,
  ): Promise<Pick<Instance, 'retry' | 'stop'>> {
    const retry = createKafkaRetryWithHooks({
      plan: this.plan,
      producer: this.producer,
      admin: this.clientAdmin,
      client: this.client.client,
      fromBeginning: true,
      consumerSettings: timingsOf(FAST),
      ...options,
    });
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await retry.stop();
    };
    this.closers.push(stop);
    await retry.run(this.client.kafka);
    return { retry, stop };
  }

  async send(
    records: Array<{
      key: string | null;
      value: string;
      partition?: number;
      headers?: Record<string, string>;
    }>,
  ): Promise<void> {
    for (const record of records) {
      await this.producer.send({
        topic: this.target.sourceTopic,
        messages: [
          {
            key: record.key === null ? null : Buffer.from(record.key),
            value: Buffer.from(record.value),
            partition: record.partition ?? 0,
            headers: record.headers ?? {},
          },
        ],
      });
    }
  }

  /** Every record in `topic` from the start, once `count` of them are there. */
  async readAll(topic: string, count: number, timeoutMs = 30_000): Promise<ConsumedMessage[]> {
    const read: ConsumedMessage[] = [];
    const reader = await this.consumer(`${topic}.reader.${randomBytes(3).toString('hex')}`);
    await reader.subscribe({ topics: [topic], fromBeginning: true });
    await reader.run({ eachMessage: async ({ message }) => void read.push(message) });
    await waitFor(() => read.length >= count, timeoutMs, `${count} records in ${topic}`);
    return read;
  }

  async close(): Promise<void> {
    for (const close of this.closers.splice(0).reverse()) await close().catch(() => undefined);
    const groups = (await this.admin.listGroups().catch(() => ({ groups: [] }))).groups
      .map((group) => group.groupId)
      .filter((id) => id.includes(this.plan.policy));
    await this.admin.deleteGroups(groups).catch(() => undefined);
    // Only those that exist: KafkaJS retries a delete of an unknown topic for seconds.
    const present = new Set(await this.admin.listTopics().catch(() => []));
    const topics = [...new Set([...this.target.topics.map((spec) => spec.name), this.target.sourceTopic])];
    await this.admin
      .deleteTopics({ topics: topics.filter((topic) => present.has(topic)) })
      .catch(() => undefined);
    await this.producer?.disconnect().catch(() => undefined);
    await this.clientAdmin?.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }
}

export interface Instance {
  retry: KafkaRetry;
  main: KitConsumer;
  retrying: KitConsumer;
  stop(): Promise<void>;
}

export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function http503(): Error {
  return Object.assign(new Error('HTTP 503 from the payment provider'), {
    name: 'HttpRequestError',
    status: 503,
  });
}

export class InvalidCurrencyError extends Error {}

export function header(message: ConsumedMessage, name: string): string | undefined {
  const raw = message.headers?.[name];
  const first = Array.isArray(raw) ? raw[0] : raw;
  return first === undefined ? undefined : first.toString();
}

/** A meter that counts what it is given, by one attribute. */
export function recordingMeter() {
  const records: Array<{ name: string; attributes: Record<string, string | number> }> = [];
  const meter: MeterLike = {
    createCounter: (name) => ({ add: (_value, attributes = {}) => void records.push({ name, attributes }) }),
    createHistogram: () => ({ record: () => undefined }),
  };
  const count = (name: string, key: string) => {
    const out: Record<string, number> = {};
    for (const r of records.filter((each) => each.name === name)) {
      const value = String(r.attributes[key]);
      out[value] = (out[value] ?? 0) + 1;
    }
    return out;
  };
  return { meter, count };
}
