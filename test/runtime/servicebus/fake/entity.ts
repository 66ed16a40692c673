import { ServiceBusError, type ServiceBusReceivedMessage } from '@azure/service-bus';
import type { FakeClock } from '../../../support/fake-clock';
import { received, type Stored } from './message';

/** What the broker keeps of a dead letter: the message plus reason, description and properties. */
export interface DeadLettered {
  messageId: unknown;
  body: unknown;
  deadLetterReason: string | undefined;
  deadLetterErrorDescription: string | undefined;
  applicationProperties: Record<string, unknown>;
  deliveryCount: number;
}

interface Lock {
  stored: Stored;
  until: number;
  expiry: AbortController;
}

export interface EntityOptions {
  /** The entity's LockDuration. */
  lockDurationMs?: number;
  /** The entity's MaxDeliveryCount (Azure's default is 10). */
  maxDeliveryCount?: number;
  /** ForwardDeadLetteredMessagesTo: dead letters go to this entity instead of the subqueue. */
  forwardDeadLettersTo?: string;
}

/** The SDK's path of an entity's dead-letter subqueue (`subQueueType: 'deadLetter'`). */
export const DEAD_LETTER_SUFFIX = '/$DeadLetterQueue';

/**
 * DeadLetterReason and DeadLetterErrorDescription limit, as the .NET SDK enforces it and
 * @azure/core-amqp declares it (Constants.maxDeadLetterReasonLength); the fake refuses longer text.
 */
export const FAKE_DEAD_LETTER_LIMIT = 4_096;

/**
 * One queue or subscription: the active messages, peek-locks that expire on the fake clock, and
 * the dead-letter subqueue. Settling needs a lock that is still held, as on the real broker.
 */
export class FakeEntity {
  readonly active: Stored[] = [];
  /**
   * The dead-letter subqueue, a receivable entity of its own (peek, peek-lock, complete, abandon,
   * lock expiry). It has no subqueue itself and never dead-letters: MaxDeliveryCount does not apply.
   */
  readonly deadLetterQueue: FakeEntity | undefined;
  readonly completed: Stored[] = [];
  readonly deadLetters: DeadLettered[] = [];
  /** Every lock that expired while its message was unsettled. */
  readonly lockLosses: Array<{ sequenceNumber: number; at: number }> = [];
  readonly renewals: Array<{ sequenceNumber: number; at: number }> = [];
  readonly abandons: Array<{ sequenceNumber: number; at: number }> = [];
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number;
  private readonly forwardTo: string | undefined;
  private readonly locks = new Map<string, Lock>();
  private readonly listeners = new Set<() => void>();
  private lockSeq = 0;

  constructor(
    readonly path: string,
    private readonly clock: FakeClock,
    options: EntityOptions = {},
    isDeadLetterQueue = false,
    /** Finds the entity dead letters are forwarded to (the bus knows the entities). */
    private readonly resolve: (path: string) => FakeEntity = () => {
      throw new Error('this entity forwards to nothing');
    },
  ) {
    this.lockDurationMs = options.lockDurationMs ?? 60_000;
    this.maxDeliveryCount = isDeadLetterQueue ? Number.POSITIVE_INFINITY : (options.maxDeliveryCount ?? 10);
    this.forwardTo = options.forwardDeadLettersTo;
    this.deadLetterQueue = isDeadLetterQueue
      ? undefined
      : new FakeEntity(`${path}${DEAD_LETTER_SUFFIX}`, clock, { lockDurationMs: this.lockDurationMs }, true);
  }

  /** Every message the entity holds, available or locked, from `from` on in sequence order (peek). */
  peek(from: number, max: number): ServiceBusReceivedMessage[] {
    const held = [...this.active, ...[...this.locks.values()].map((lock) => lock.stored)];
    return held
      .filter((stored) => stored.sequenceNumber >= from)
      .sort((a, b) => a.sequenceNumber - b.sequenceNumber)
      .slice(0, max)
      .map((stored) => received(stored, { token: '', until: 0 }));
  }

  enqueue(stored: Stored): void {
    this.active.push(stored);
    for (const listener of [...this.listeners]) listener();
  }

  onEnqueue(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Locks the next active message for a receiver. */
  deliver(): ServiceBusReceivedMessage | undefined {
    const stored = this.active.shift();
    if (!stored) return undefined;
    const token = `lock-${++this.lockSeq}`;
    const lock: Lock = {
      stored,
      until: this.clock.now() + this.lockDurationMs,
      expiry: new AbortController(),
    };
    this.locks.set(token, lock);
    this.armExpiry(token, lock);
    return received(stored, { token, until: lock.until });
  }

  complete(message: ServiceBusReceivedMessage): void {
    const lock = this.release(message);
    this.completed.push(lock.stored);
  }

  abandon(message: ServiceBusReceivedMessage): void {
    const lock = this.release(message);
    this.abandons.push({ sequenceNumber: lock.stored.sequenceNumber, at: this.clock.now() });
    this.redeliver(lock.stored);
  }

  deadLetter(message: ServiceBusReceivedMessage, options: Record<string, unknown> = {}): void {
    const { deadLetterReason, deadLetterErrorDescription, ...properties } = options;
    for (const [name, text] of Object.entries({ deadLetterReason, deadLetterErrorDescription })) {
      if (typeof text === 'string' && text.length > FAKE_DEAD_LETTER_LIMIT)
        throw new RangeError(`${name} is ${text.length} characters; the limit is ${FAKE_DEAD_LETTER_LIMIT}`);
    }
    const lock = this.release(message);
    this.bury(lock.stored, {
      reason: deadLetterReason as string | undefined,
      description: deadLetterErrorDescription as string | undefined,
      properties,
    });
  }

  renew(message: ServiceBusReceivedMessage): Date {
    const lock = this.held(message);
    lock.expiry.abort();
    lock.until = this.clock.now() + this.lockDurationMs;
    lock.expiry = new AbortController();
    this.armExpiry(message.lockToken as string, lock);
    this.renewals.push({ sequenceNumber: lock.stored.sequenceNumber, at: this.clock.now() });
    return new Date(lock.until);
  }

  /** Messages locked right now. */
  get lockedCount(): number {
    return this.locks.size;
  }

  private held(message: ServiceBusReceivedMessage): Lock {
    const lock = message.lockToken === undefined ? undefined : this.locks.get(message.lockToken);
    if (!lock || lock.until <= this.clock.now()) {
      throw new ServiceBusError(
        `the lock on message ${String(message.messageId)} is lost`,
        'MessageLockLost',
      );
    }
    return lock;
  }

  private release(message: ServiceBusReceivedMessage): Lock {
    const lock = this.held(message);
    lock.expiry.abort();
    this.locks.delete(message.lockToken as string);
    return lock;
  }

  private armExpiry(token: string, lock: Lock): void {
    this.clock.sleep(lock.until - this.clock.now(), lock.expiry.signal).then(
      () => {
        if (this.locks.get(token) !== lock) return;
        this.locks.delete(token);
        this.lockLosses.push({ sequenceNumber: lock.stored.sequenceNumber, at: this.clock.now() });
        this.redeliver(lock.stored);
      },
      () => {}, // settled or renewed first
    );
  }

  /** An abandon or a lost lock counts a delivery; past MaxDeliveryCount the broker dead-letters. */
  private redeliver(stored: Stored): void {
    stored.deliveryCount++;
    if (stored.deliveryCount >= this.maxDeliveryCount) {
      this.bury(stored, {
        reason: 'MaxDeliveryCountExceeded',
        description: `Message could not be consumed after ${this.maxDeliveryCount} delivery attempts.`,
        properties: {},
      });
      return;
    }
    this.active.unshift(stored);
    for (const listener of [...this.listeners]) listener();
  }

  private bury(
    stored: Stored,
    why: { reason: string | undefined; description: string | undefined; properties: Record<string, unknown> },
  ): void {
    // The subqueue keeps the message's sequence number and enqueued time; the properties given
    // to deadLetterMessage become application properties. A forwarded one says where it came from.
    const into = this.forwardTo === undefined ? this.deadLetterQueue : this.resolve(this.forwardTo);
    into?.enqueue({
      ...stored,
      sent: {
        ...stored.sent,
        applicationProperties: {
          ...stored.sent.applicationProperties,
          ...(why.properties as NonNullable<typeof stored.sent.applicationProperties>),
        },
      },
      deadLetter: {
        reason: why.reason,
        description: why.description,
        ...(this.forwardTo === undefined ? {} : { source: this.path }),
      },
    });
    this.deadLetters.push({
      messageId: stored.sent.messageId,
      body: stored.sent.body,
      deadLetterReason: why.reason,
      deadLetterErrorDescription: why.description,
      applicationProperties: { ...stored.sent.applicationProperties, ...why.properties },
      deliveryCount: stored.deliveryCount,
    });
  }
}
