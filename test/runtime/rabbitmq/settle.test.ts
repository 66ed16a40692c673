import type { Channel, ConsumeMessage } from 'amqplib';
import { describe, expect, it } from 'vitest';
import { Settler, settlerFor } from '../../../runtime/rabbitmq/settle';
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
  it('acks a finished run at the front with one multiple ack, on the next turn of the event loop', async () => {
    const { channel, calls } = recordingChannel();
    const settle = new Settler(channel);
    const messages = [1, 2, 3].map(delivery);
    for (const message of messages) settle.track(message);
    for (const message of messages) settle.ack(message);
    expect(calls).toEqual([]);
    await flush();
    expect(calls).toEqual(['ack 3 multiple']);
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
    expect(calls).toEqual(['reject 2 requeue=false', 'nack 3 requeue=true', 'ack 1']);
  });

  it('is one per channel, so consumers sharing a channel share its ledger', async () => {
    const { channel, calls } = recordingChannel();
    const first = settlerFor(channel);
    expect(settlerFor(channel)).toBe(first);
    expect(settlerFor(recordingChannel().channel)).not.toBe(first);
    // Consumer A got 1 and 3, consumer B got 2 (still running): A's acks stay single.
    first.track(delivery(1));
    settlerFor(channel).track(delivery(2));
    first.track(delivery(3));
    first.ack(delivery(1));
    first.ack(delivery(3));
    await flush();
    expect(calls).toEqual(['ack 1', 'ack 3']);
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
