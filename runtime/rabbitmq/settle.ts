import type { Channel, Message } from 'amqplib';
import { AckLedger } from './ack-ledger';

/**
 * Acks, batched, for every consumer on one channel. Each ack is a write to the quorum queue's log;
 * one `multiple` ack for a run of finished deliveries costs the broker one (see BENCHMARKS.md).
 *
 * A multiple ack settles whatever is unacked on the channel up to its tag, whoever consumes it,
 * so there is one Settler per channel, shared by every consumeWithRetries on it, and its
 * AckLedger decides which acks may be batched. Deliveries it never saw (another consumer on the
 * channel, a basic.get) make it fall back to single acks above them. Rejects and nacks go out at
 * once, one by one.
 */
export class Settler {
  private readonly ledger = new AckLedger();
  /** Finished deliveries whose ack is not sent yet. */
  private readonly finished = new Map<number, Message>();
  private scheduled = false;
  private readonly flushSoon = () => this.flush();
  /** Deliveries given back by a stop's deadline while their handler still ran: settled already. */
  private readonly givenBack = new Set<number>();

  constructor(private readonly channel: Channel) {}

  /** Every delivery to a consumer of ours, as it arrives. */
  track(message: Message): void {
    this.ledger.delivered(message.fields.deliveryTag);
  }

  ack(message: Message): void {
    if (this.givenBack.delete(message.fields.deliveryTag)) return;
    this.ledger.finished(message.fields.deliveryTag);
    this.finished.set(message.fields.deliveryTag, message);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushSoon);
    }
  }

  reject(message: Message, requeue: boolean): void {
    if (this.givenBack.delete(message.fields.deliveryTag)) return;
    this.ledger.settled(message.fields.deliveryTag);
    this.channel.reject(message, requeue);
  }

  nack(message: Message, requeue: boolean): void {
    if (this.givenBack.delete(message.fields.deliveryTag)) return;
    this.ledger.settled(message.fields.deliveryTag);
    this.channel.nack(message, false, requeue);
  }

  /**
   * Back to its queue now, untouched, while its handler may still run (a stop's deadline passed):
   * whatever the handler's end settles later is dropped, since settling a tag twice fails the
   * channel with 406.
   */
  giveBack(message: Message): void {
    this.nack(message, true);
    this.givenBack.add(message.fields.deliveryTag);
  }

  /** Sends every pending ack now (a consumer calls it when it stops). */
  flush(): void {
    this.scheduled = false;
    const acks = this.ledger.take();
    try {
      for (const { tag, multiple } of acks) this.channel.ack(this.finished.get(tag) as Message, multiple);
    } catch {
      // The channel closed: the broker requeues whatever was unacked, so there is nothing to undo.
    }
    this.finished.clear();
  }
}

const settlers = new WeakMap<Channel, Settler>();

/** The channel's one Settler, made on first use. */
export function settlerFor(channel: Channel): Settler {
  let settler = settlers.get(channel);
  if (!settler) {
    settler = new Settler(channel);
    settlers.set(channel, settler);
  }
  return settler;
}
