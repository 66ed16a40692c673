import { ServiceBusError, type ServiceBusMessage, type ServiceBusSender } from '@azure/service-bus';
import type { FakeClock } from '../../../support/fake-clock';
import { type Long, long } from './long';
import { encode } from './message';

export type FakeSenderContract = Pick<ServiceBusSender, 'entityPath' | 'scheduleMessages' | 'sendMessages'>;

type Arg<K extends keyof FakeSenderContract> = FakeSenderContract[K] extends (...args: infer A) => unknown
  ? A
  : never;

export interface Delivery {
  /** Puts a message on the entity (a topic fans it out), now or at `at`. */
  send(message: ServiceBusMessage, at?: number): number;
}

/** A sender on one fake entity. `refuse` makes the broker turn scheduling down, as a full entity does. */
export class FakeSender implements FakeSenderContract {
  /** Every accepted schedule call: the copy as sent and when it is due. */
  readonly scheduled: Array<{ message: ServiceBusMessage; at: Date; sequenceNumber: number }> = [];
  /** Every message accepted by sendMessages, as sent. */
  readonly sent: ServiceBusMessage[] = [];
  private refusal: Error | undefined;
  private crashAfter: number | undefined;
  /** True once a send hit the crash set by crashWhenSending. */
  isCrashed = false;

  constructor(
    readonly entityPath: string,
    private readonly delivery: Delivery,
    private readonly clock: FakeClock,
  ) {}

  refuse(error: Error = new ServiceBusError('the entity is full', 'QuotaExceeded')): void {
    this.refusal = error;
  }

  accept(): void {
    this.refusal = undefined;
  }

  /** The process dies on a later send: after `after` more sends succeed, sends never return. */
  crashWhenSending(options: { after?: number } = {}): void {
    this.crashAfter = options.after ?? 0;
  }

  async sendMessages(...[messages]: Arg<'sendMessages'>): Promise<void> {
    if (this.crashAfter !== undefined && this.crashAfter-- <= 0) {
      this.isCrashed = true;
      return new Promise<void>(() => {});
    }
    for (const message of this.plain(messages)) {
      this.delivery.send(encode(message));
      this.sent.push(encode(message));
    }
  }

  async scheduleMessages(...[messages, at]: Arg<'scheduleMessages'>): Promise<Long[]> {
    if (this.refusal) throw this.refusal;
    return this.plain(messages).map((message) => {
      const sequenceNumber = this.delivery.send(encode(message), Math.max(at.getTime(), this.clock.now()));
      this.scheduled.push({ message: encode(message), at, sequenceNumber });
      return long(sequenceNumber);
    });
  }

  /** The fake takes ServiceBusMessage objects only, which is all the wrapper sends. */
  private plain(messages: unknown): ServiceBusMessage[] {
    const list = Array.isArray(messages) ? messages : [messages];
    for (const message of list) {
      if (!message || typeof message !== 'object' || !('body' in message) || 'bodyType' in message)
        throw new TypeError('the fake sender takes ServiceBusMessage objects only');
    }
    return list as ServiceBusMessage[];
  }
}
