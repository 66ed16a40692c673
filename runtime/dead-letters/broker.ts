import type { DeadLetter } from './types';

/**
 * What each broker's adapter provides; the commands (operations.ts) are written once against it.
 *
 * Two passes, always: `browse` reads every dead letter and changes nothing, so a command knows
 * exactly what it will act on (and a dry run, `list` and `show` stop there); `claim` then takes
 * them one by one and settles the selected ones. Nothing is removed from the dead letters before
 * its copy is confirmed, so a process that dies at any point leaves each message dead-lettered,
 * replayed, or both (a duplicate), never neither.
 */
export interface DeadLetterBroker {
  /** Where the dead letters are (a queue, a topic, one or two subqueues). */
  readonly locations: string[];
  /** Where a replay sends them. */
  readonly replayTo: string;
  /** Replays that may wait for their broker confirmation at once: 1 where order must hold. */
  readonly maxInFlight: number;
  /** Why --keep-attempts cannot apply here, when it cannot (the broker counts attempts itself). */
  readonly keepAttemptsUnsupported?: string;
  /**
   * Every dead letter, read without taking it. Ending the loop early is fine. The order is the
   * same on every read of the same dead letters (RabbitMQ: the queue's; Kafka: by partition, then
   * offset; Service Bus: by subqueue, then sequence number): `show --skip` and `--max` count in it.
   */
  browse(signal?: AbortSignal): AsyncIterable<DeadLetter>;
  /** Kafka: how many were ever replayed and purged (its records stay, marked done). */
  doneCounts?(): Promise<{ replayed: number; purged: number }>;
  /** `ratePerSecond`: how fast the command will settle, so a broker with locks can size its batches. */
  claim(signal?: AbortSignal, hint?: { ratePerSecond?: number }): Promise<Claim>;
}

export interface ReplayCopyOptions {
  /** Epoch ms written into the copy as the replay time. */
  now: number;
  keepAttempts: boolean;
}

export type Settled = 'done' | 'released';

/** One pass that holds dead letters (unacked, peek-locked, or not yet committed past). */
export interface Claim {
  /** The next dead letter, held until settled or until the claim closes; undefined at the end. */
  next(): Promise<DeadLetter | undefined>;
  /**
   * Sends the copy, waits until the broker confirms it, then removes (Kafka: marks) the original.
   * `released` means nothing was sent and the dead letter is back where it was (a Service Bus
   * lock ran out before its turn): it may come again in this claim.
   */
  replay(letter: DeadLetter, options: ReplayCopyOptions): Promise<Settled>;
  /** Removes the original (Kafka: marks it purged); `released` as for replay. */
  remove(letter: DeadLetter): Promise<Settled>;
  /** Gives back everything still held, untouched. */
  close(): Promise<void>;
}
