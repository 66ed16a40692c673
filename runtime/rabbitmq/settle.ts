import type { Channel, ConsumeMessage } from 'amqplib';

/**
 * Acks, batched. Each ack is a write to the quorum queue's log; one `multiple` ack for a run of
 * finished deliveries costs the broker one. Measured on 3.10.8 (bench/rabbitmq): consume, copy
 * and ack went from about 6 600 to 8 300 messages/s at prefetch 50.
 *
 * Only a run of finished deliveries at the front is acked with `multiple`; a finished one behind
 * a still-running one is acked on its own in the same flush, so a slow message never holds the
 * others' prefetch slots. Rejects and nacks go out at once, one by one.
 */
export class Settler {
  /** Deliveries not yet settled, in delivery-tag order (the broker hands them out that way). */
  private readonly outstanding: ConsumeMessage[] = [];
  private readonly finished = new Set<number>();
  private scheduled = false;

  constructor(private readonly channel: Channel) {}

  track(message: ConsumeMessage): void {
    this.outstanding.push(message);
  }

  ack(message: ConsumeMessage): void {
    this.finished.add(message.fields.deliveryTag);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  reject(message: ConsumeMessage, requeue: boolean): void {
    this.forget(message);
    this.channel.reject(message, requeue);
  }

  nack(message: ConsumeMessage, requeue: boolean): void {
    this.forget(message);
    this.channel.nack(message, false, requeue);
  }

  /** Sends every pending ack now (the consumer calls it when it stops). */
  flush(): void {
    this.scheduled = false;
    let front: ConsumeMessage | undefined;
    while (this.outstanding.length > 0) {
      const first = this.outstanding[0] as ConsumeMessage;
      if (!this.finished.has(first.fields.deliveryTag)) break;
      this.outstanding.shift();
      this.finished.delete(first.fields.deliveryTag);
      front = first;
    }
    try {
      if (front) this.channel.ack(front, true);
      for (let index = 0; index < this.outstanding.length; index++) {
        const message = this.outstanding[index] as ConsumeMessage;
        if (!this.finished.delete(message.fields.deliveryTag)) continue;
        this.outstanding.splice(index--, 1);
        this.channel.ack(message);
      }
    } catch {
      // The channel closed: the broker requeues whatever was unacked, so there is nothing to undo.
    }
  }

  private forget(message: ConsumeMessage): void {
    const index = this.outstanding.indexOf(message);
    if (index >= 0) this.outstanding.splice(index, 1);
    this.finished.delete(message.fields.deliveryTag);
  }
}
