import amqplib, { type ConsumeMessage } from 'amqplib';
import type { RetryPlan } from '../../policy';
import type { FailoverConsumer } from '../../runtime/rabbitmq';
import { PUBLISH_ID_HEADER, publishConfirmed } from '../../runtime/rabbitmq/confirm';
import { type FailoverSession, runFailover } from '../../runtime/rabbitmq/failover';
import { sleep } from './support';

/**
 * The fault run's producer and dead-letter reader. Both must live through the node kills too, so
 * both move to another node when theirs dies, like the consumer does.
 */

/** Publishes through a list of nodes; a publish whose confirm never came is published again. */
export class FailoverPublisher {
  /** Publishes sent again after a lost confirm (the broker may hold both copies). */
  republished = 0;
  private channel: amqplib.ConfirmChannel | undefined;
  private connection: amqplib.ChannelModel | undefined;
  private next: number;

  constructor(
    private readonly urls: readonly string[],
    private readonly plan: RetryPlan,
    start = 0,
  ) {
    this.next = start;
  }

  async publish(id: string, body: unknown): Promise<void> {
    const rabbit = this.plan.targets.rabbitmq;
    const source = rabbit?.exchanges.find((exchange) => exchange.role === 'source');
    const binding = rabbit?.bindings.find((each) => each.source === source?.name);
    for (let tries = 0; ; tries++) {
      try {
        const channel = await this.open();
        await publishConfirmed(
          channel,
          source?.name ?? '',
          binding?.routingKey ?? '',
          Buffer.from(JSON.stringify(body)),
          {
            persistent: true,
            messageId: id,
          },
        );
        if (tries > 0) this.republished++;
        return;
      } catch {
        await this.drop();
        await sleep(Math.min(100 * 2 ** tries, 2_000));
      }
    }
  }

  private async open(): Promise<amqplib.ConfirmChannel> {
    if (this.channel) return this.channel;
    const url = this.urls[this.next % this.urls.length] as string;
    this.next++;
    const connection = await amqplib.connect(url);
    connection.on('error', () => undefined);
    const channel = await connection.createConfirmChannel();
    channel.on('error', () => undefined);
    const forget = () => {
      if (this.channel === channel) this.channel = undefined;
    };
    channel.once('close', forget);
    connection.once('close', forget);
    this.connection = connection;
    this.channel = channel;
    return channel;
  }

  private async drop(): Promise<void> {
    const connection = this.connection;
    this.channel = undefined;
    this.connection = undefined;
    await connection?.close().catch(() => undefined);
  }

  close(): Promise<void> {
    return this.drop();
  }
}

/** Consumes a queue through a list of nodes, acking each message after `onMessage`. */
export function readQueue(
  urls: readonly string[],
  queue: string,
  onMessage: (message: ConsumeMessage) => void,
): Promise<FailoverConsumer> {
  return runFailover(
    urls,
    async (url): Promise<FailoverSession> => {
      const connection = await amqplib.connect(url);
      connection.on('error', () => undefined);
      let lose: (reason: unknown) => void = () => undefined;
      const lost = new Promise<unknown>((resolve) => {
        lose = resolve;
      });
      connection.once('close', () => lose(new Error(`connection to ${url} closed`)));
      const channel = await connection.createChannel();
      channel.on('error', () => undefined);
      channel.once('close', () => lose(new Error('channel closed')));
      await channel.consume(queue, (message) => {
        if (!message) return lose(new Error('consumer cancelled'));
        onMessage(message);
        channel.ack(message);
      });
      return { lost, close: () => connection.close().catch(() => undefined) };
    },
    { random: () => 0.99 },
  );
}

/** The dead-letter reason: the runtime's header, or the broker's own dead-lettering (x-death). */
export function deadLetterReason(message: ConsumeMessage): string {
  const headers = message.properties.headers ?? {};
  const reason = headers['retry-dead-letter-reason'];
  if (typeof reason === 'string') return reason;
  const death = (headers['x-death'] as Array<{ reason?: string }> | undefined)?.[0];
  return `broker:${death?.reason ?? 'unknown'}`;
}

export function publishIdOf(message: ConsumeMessage): string | undefined {
  const id = message.properties.headers?.[PUBLISH_ID_HEADER];
  return typeof id === 'string' ? id : undefined;
}
