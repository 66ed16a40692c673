import type {
  MessageHandlers,
  PeekMessagesOptions,
  ReceiveMessagesOptions,
  ServiceBusReceivedMessage,
  ServiceBusReceiver,
  SubscribeOptions,
} from '@azure/service-bus';
import type { FakeClock } from '../../../support/fake-clock';
import type { FakeEntity } from './entity';

type Settling = 'completeMessage' | 'abandonMessage' | 'deadLetterMessage' | 'renewMessageLock';
type Crashing = Settling | 'receiveMessages';

/** The receiver methods the wrapper uses, typed by the SDK: the same Picks the wrapper depends on. */
export type FakeReceiverContract = Pick<
  ServiceBusReceiver,
  'entityPath' | 'receiveMode' | 'receiveMessages' | 'peekMessages' | 'subscribe' | Settling
>;

/** Never settles: what a caller sees from a process that died. */
const never = <T>() => new Promise<T>(() => {});

/**
 * A peek-lock receiver on one fake entity. `subscribe` behaves like the SDK's: a handler that
 * throws gets its message abandoned, and with autoCompleteMessages (on by default) a message the
 * handler left unsettled is completed.
 */
export class FakeReceiver implements FakeReceiverContract {
  readonly receiveMode = 'peekLock' as const;
  /** Calls made, in order, for tests that assert what the wrapper did. */
  readonly calls: Array<{ method: Settling; messageId: unknown; at: number }> = [];
  private crashed = false;
  private crashOn: Crashing | undefined;
  /** Calls of `crashOn` still allowed before the crash. */
  private crashAfter = 0;
  /** Where the next peek without fromSequenceNumber starts, as the SDK's peek cursor. */
  private peekFrom = 0;
  private failures = new Map<Settling, Error>();
  /** Messages this receiver holds a lock on and has not settled. */
  private readonly unsettled = new Set<string>();

  constructor(
    private readonly entity: FakeEntity,
    private readonly clock: FakeClock,
  ) {}

  get entityPath(): string {
    return this.entity.path;
  }

  /**
   * The process dies when it next calls `method` (after `after` more calls of it succeed): that
   * call and every later one never return.
   */
  crashWhenCalling(method: Crashing, options: { after?: number } = {}): void {
    this.crashOn = method;
    this.crashAfter = options.after ?? 0;
  }

  /** True once the receiver's process has died. */
  get isCrashed(): boolean {
    return this.crashed;
  }

  async peekMessages(
    maxMessageCount: number,
    options?: PeekMessagesOptions,
  ): Promise<ServiceBusReceivedMessage[]> {
    if (this.crashed) return never();
    const from =
      options?.fromSequenceNumber === undefined ? this.peekFrom : Number(options.fromSequenceNumber);
    const page = this.entity.peek(from, maxMessageCount);
    const last = page[page.length - 1]?.sequenceNumber;
    if (last !== undefined) this.peekFrom = Number(last) + 1;
    return page;
  }

  /** The next call to `method` fails with `error`, as a broker or network failure would. */
  failNext(method: Settling, error: Error): void {
    this.failures.set(method, error);
  }

  async receiveMessages(
    maxMessageCount: number,
    options?: ReceiveMessagesOptions,
  ): Promise<ServiceBusReceivedMessage[]> {
    if (this.crashed || this.crashes('receiveMessages')) return never();
    if (this.entity.active.length === 0) await this.waitForMessage(options);
    const out: ServiceBusReceivedMessage[] = [];
    while (out.length < maxMessageCount) {
      const message = this.entity.deliver();
      if (!message) break;
      this.unsettled.add(message.lockToken as string);
      out.push(message);
    }
    return out;
  }

  subscribe(handlers: MessageHandlers, options?: SubscribeOptions): { close(): Promise<void> } {
    const autoComplete = options?.autoCompleteMessages ?? true;
    const concurrency = options?.maxConcurrentCalls ?? 1;
    let open = true;
    let inFlight = 0;
    const pump = () => {
      while (open && !this.crashed && inFlight < concurrency) {
        const message = this.entity.deliver();
        if (!message) return;
        this.unsettled.add(message.lockToken as string);
        inFlight++;
        void this.dispatch(handlers, message, autoComplete).finally(() => {
          inFlight--;
          pump();
        });
      }
    };
    const stopListening = this.entity.onEnqueue(pump);
    pump();
    return {
      close: async () => {
        open = false;
        stopListening();
      },
    };
  }

  async completeMessage(message: ServiceBusReceivedMessage): Promise<void> {
    await this.settle('completeMessage', message, () => this.entity.complete(message));
  }

  async abandonMessage(message: ServiceBusReceivedMessage): Promise<void> {
    await this.settle('abandonMessage', message, () => this.entity.abandon(message));
  }

  async deadLetterMessage(
    message: ServiceBusReceivedMessage,
    options?: Parameters<ServiceBusReceiver['deadLetterMessage']>[1],
  ): Promise<void> {
    await this.settle('deadLetterMessage', message, () => this.entity.deadLetter(message, options));
  }

  async renewMessageLock(message: ServiceBusReceivedMessage): Promise<Date> {
    return this.call('renewMessageLock', message, () => {
      const until = this.entity.renew(message);
      // As the SDK does: the message object shows the new lock.
      message.lockedUntilUtc = until;
      return until;
    });
  }

  private crashes(method: Crashing): boolean {
    if (this.crashOn !== method) return false;
    if (this.crashAfter-- > 0) return false;
    this.crashed = true;
    return true;
  }

  private async dispatch(
    handlers: MessageHandlers,
    message: ServiceBusReceivedMessage,
    autoComplete: boolean,
  ) {
    try {
      await handlers.processMessage(message);
    } catch {
      if (this.isUnsettled(message)) await this.abandonMessage(message).catch(() => {});
      return;
    }
    if (autoComplete && this.isUnsettled(message)) await this.completeMessage(message).catch(() => {});
  }

  private isUnsettled(message: ServiceBusReceivedMessage): boolean {
    return !this.crashed && this.unsettled.has(message.lockToken as string);
  }

  private async settle(
    method: Settling,
    message: ServiceBusReceivedMessage,
    action: () => void,
  ): Promise<void> {
    await this.call(method, message, () => {
      action();
      this.unsettled.delete(message.lockToken as string);
    });
  }

  private async call<T>(method: Settling, message: ServiceBusReceivedMessage, action: () => T): Promise<T> {
    if (this.crashed || this.crashes(method)) return never();
    this.calls.push({ method, messageId: message.messageId, at: this.clock.now() });
    const failure = this.failures.get(method);
    if (failure) {
      this.failures.delete(method);
      throw failure;
    }
    return action();
  }

  private async waitForMessage(options?: ReceiveMessagesOptions): Promise<void> {
    const stop = new AbortController();
    const arrived = new Promise<void>((resolve) => {
      const unsubscribe = this.entity.onEnqueue(() => {
        unsubscribe();
        resolve();
      });
      stop.signal.addEventListener('abort', unsubscribe, { once: true });
    });
    const aborted = new Promise<never>((_, reject) => {
      const signal = options?.abortSignal;
      if (signal?.aborted) reject(new Error('receive aborted'));
      signal?.addEventListener?.('abort', () => reject(new Error('receive aborted')), { once: true });
    });
    const timeout = this.clock.sleep(options?.maxWaitTimeInMs ?? 60_000, stop.signal).catch(() => {});
    try {
      await Promise.race([arrived, timeout, aborted]);
    } finally {
      stop.abort();
    }
  }
}
