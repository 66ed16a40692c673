import type { ServiceBusMessage } from '@azure/service-bus';
import type { FakeClock } from '../../../support/fake-clock';
import { DEAD_LETTER_SUFFIX, type EntityOptions, FakeEntity } from './entity';
import { FakeReceiver } from './receiver';
import { FakeSender } from './sender';

/**
 * An in-process Service Bus namespace on a fake clock: there is no emulator without Docker. It
 * keeps queues, topics with subscriptions, scheduled messages (delivered when due), peek-locks
 * and dead-letter subqueues. It does not auto-renew locks: the harder case for the wrapper.
 */
export class FakeServiceBus {
  private readonly entities = new Map<string, FakeEntity>();
  private readonly topics = new Map<string, string[]>();
  private sequence = 0;

  constructor(readonly clock: FakeClock) {}

  queue(name: string, options?: EntityOptions): FakeEntity {
    const entity = new FakeEntity(name, this.clock, options, false, (path) => this.entity(path));
    this.entities.set(name.toLowerCase(), entity);
    return entity;
  }

  /** A topic and its subscriptions; each subscription's path is `<topic>/Subscriptions/<name>`. */
  topic(name: string, subscriptions: Record<string, EntityOptions>): Record<string, FakeEntity> {
    const out: Record<string, FakeEntity> = {};
    for (const [subscription, options] of Object.entries(subscriptions)) {
      out[subscription] = this.queue(`${name}/Subscriptions/${subscription}`, options);
    }
    this.topics.set(
      name.toLowerCase(),
      Object.keys(subscriptions).map((subscription) => `${name}/Subscriptions/${subscription}`.toLowerCase()),
    );
    return out;
  }

  entity(path: string): FakeEntity {
    const lower = path.toLowerCase();
    const subqueue = lower.endsWith(DEAD_LETTER_SUFFIX.toLowerCase());
    const entity = this.entities.get(subqueue ? lower.slice(0, -DEAD_LETTER_SUFFIX.length) : lower);
    const found = subqueue ? entity?.deadLetterQueue : entity;
    if (!found) throw new Error(`no entity ${path}`);
    return found;
  }

  /** A receiver on an entity's dead-letter subqueue, as `createReceiver(..., { subQueueType: 'deadLetter' })`. */
  deadLetterReceiver(path: string): FakeReceiver {
    return this.receiver(`${path}${DEAD_LETTER_SUFFIX}`);
  }

  receiver(path: string): FakeReceiver {
    return new FakeReceiver(this.entity(path), this.clock);
  }

  sender(path: string): FakeSender {
    const targets = this.topics.get(path.toLowerCase()) ?? [this.entity(path).path.toLowerCase()];
    return new FakeSender(path, { send: (message, at) => this.send(targets, message, at) }, this.clock);
  }

  private send(targets: string[], message: ServiceBusMessage, at?: number): number {
    const sequenceNumber = ++this.sequence;
    const arrive = () => {
      for (const target of targets) {
        this.entity(target).enqueue({
          sequenceNumber,
          sent: structuredClone(message),
          enqueuedAt: this.clock.now(),
          deliveryCount: 0,
        });
      }
    };
    if (at === undefined || at <= this.clock.now()) arrive();
    else void this.clock.sleep(at - this.clock.now()).then(arrive);
    return sequenceNumber;
  }
}
