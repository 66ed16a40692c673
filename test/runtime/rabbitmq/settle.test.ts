import type { Channel, ConsumeMessage } from 'amqplib';
import { describe, expect, it } from 'vitest';
import { Settler } from '../../../runtime/rabbitmq/settle';
import { flush } from '../../support/fake-clock';

/** The three calls Settler makes, recorded; typed against amqplib's Channel. */
function recordingChannel() {
  const calls: string[] = [];
  const channel = {
    ack: (message: ConsumeMessage, allUpTo?: boolean) =>
      void calls.push(`ack ${message.fields.deliveryTag}${allUpTo ? ' multiple' : ''}`),
    nack: (message: ConsumeMessage, _allUpTo?: boolean, requeue?: boolean) =>
      void calls.push(`nack ${message.fields.deliveryTag} requeue=${requeue}`),
    reject: (message: ConsumeMessage, requeue?: boolean) =>
      void calls.push(`reject ${message.fields.deliveryTag} requeue=${requeue}`),
  } satisfies Pick<Channel, 'ack' | 'nack' | 'reject'>;
  return { channel: channel as unknown as Channel, calls };
}

function delivery(tag: number): ConsumeMessage {
  return {
    fields: { deliveryTag: tag },
    properties: {},
    content: Buffer.alloc(0),
  } as unknown as ConsumeMessage;
}

describe('Settler', () => {
  it('acks a finished run at the front with one multiple ack', async () => {
    const { channel, calls } = recordingChannel();
    const settle = new Settler(channel);
    const messages = [1, 2, 3].map(delivery);
    for (const message of messages) settle.track(message);
    for (const message of messages) settle.ack(message);
    await flush();
    expect(calls).toEqual(['ack 3 multiple']);
  });

  it('acks a finished message behind a running one on its own, so it does not hold a slot', async () => {
    const { channel, calls } = recordingChannel();
    const settle = new Settler(channel);
    const [slow, quick, quicker] = [1, 2, 3].map(delivery) as [
      ConsumeMessage,
      ConsumeMessage,
      ConsumeMessage,
    ];
    for (const message of [slow, quick, quicker]) settle.track(message);
    settle.ack(quick);
    settle.ack(quicker);
    await flush();
    expect(calls).toEqual(['ack 2', 'ack 3']);
    settle.ack(slow);
    await flush();
    // A multiple ack now would be wrong only if it covered an unsettled tag; 1 is the only one left.
    expect(calls).toEqual(['ack 2', 'ack 3', 'ack 1 multiple']);
  });

  it('sends rejects and nacks at once and never acks those deliveries', async () => {
    const { channel, calls } = recordingChannel();
    const settle = new Settler(channel);
    const [a, b, c] = [1, 2, 3].map(delivery) as [ConsumeMessage, ConsumeMessage, ConsumeMessage];
    for (const message of [a, b, c]) settle.track(message);
    settle.ack(a);
    settle.reject(b, false);
    settle.nack(c, true);
    expect(calls).toEqual(['reject 2 requeue=false', 'nack 3 requeue=true']);
    await flush();
    expect(calls).toEqual(['reject 2 requeue=false', 'nack 3 requeue=true', 'ack 1 multiple']);
  });

  it('survives a closed channel', async () => {
    const settle = new Settler({
      ack: () => {
        throw new Error('Channel closed');
      },
    } as unknown as Channel);
    const message = delivery(1);
    settle.track(message);
    settle.ack(message);
    expect(() => settle.flush()).not.toThrow();
  });
});
