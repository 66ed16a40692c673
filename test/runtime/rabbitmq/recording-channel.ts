import type { ConfirmChannel, ConsumeMessage, Options } from 'amqplib';

export interface RecordedCall {
  call: string;
  tag?: number;
  exchange?: string;
  routingKey?: string;
  options?: Options.Publish;
  requeue?: boolean;
}

/**
 * A channel that records what the consumer asks of it, typed by amqplib's own ConfirmChannel
 * methods, so the calls are the ones a real channel receives. `refuse` makes the broker nack a
 * publish (a full wait queue); `deliver(null)` is the broker cancelling the consumer.
 */
export function recordingChannel(options: { refuse?: (exchange: string) => boolean } = {}) {
  const calls: RecordedCall[] = [];
  let deliver: (message: ConsumeMessage | null) => void = () => {};
  const channel = {
    prefetch: async () => ({}),
    consume: async (_queue: string, onMessage: (message: ConsumeMessage | null) => void) => {
      deliver = onMessage;
      return { consumerTag: 'ctag' };
    },
    cancel: async () => ({ consumerTag: 'ctag' }),
    on: () => channel,
    once: () => channel,
    removeListener: () => channel,
    ack: (message: ConsumeMessage) => void calls.push({ call: 'ack', tag: message.fields.deliveryTag }),
    nack: (message: ConsumeMessage, _allUpTo?: boolean, requeue?: boolean) =>
      void calls.push({ call: 'nack', tag: message.fields.deliveryTag, requeue }),
    reject: (message: ConsumeMessage, requeue?: boolean) =>
      void calls.push({ call: 'reject', tag: message.fields.deliveryTag, requeue }),
    publish: (
      exchange: string,
      routingKey: string,
      _content: Buffer,
      publishOptions?: Options.Publish,
      callback?: (error: unknown, ok: object) => void,
    ) => {
      calls.push({ call: 'publish', exchange, routingKey, options: publishOptions });
      const refused = options.refuse?.(exchange) ?? false;
      setImmediate(() => callback?.(refused ? new Error('nack') : null, {}));
      return true;
    },
  } satisfies Pick<
    ConfirmChannel,
    'prefetch' | 'consume' | 'cancel' | 'ack' | 'nack' | 'reject' | 'publish'
  > & { on: unknown; once: unknown; removeListener: unknown };
  return {
    channel: channel as unknown as ConfirmChannel,
    calls,
    deliver: (message: ConsumeMessage | null) => deliver(message),
  };
}

export function delivery(headers: Record<string, unknown> = {}, tag = 1): ConsumeMessage {
  return {
    content: Buffer.from('{"orderId":"o-1"}'),
    fields: {
      deliveryTag: tag,
      redelivered: false,
      exchange: 'bookstore.ordering',
      routingKey: 'order.placed',
      consumerTag: 'ctag',
    },
    properties: { headers, messageId: `msg-${tag}`, contentType: 'application/json' },
  } as unknown as ConsumeMessage;
}
