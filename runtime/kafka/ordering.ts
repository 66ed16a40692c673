import type { HandlerRun } from '../run-handler';
import type { Place } from './chain-keys';
import type { Delivery, Reading } from './delivery';
import type { CopyHeaders } from './headers';
import type { Copy } from './route';

/**
 * How the batched engine orders a batch's records (batch-engine.ts), as a strategy it calls:
 * `unordered` runs every record side by side; per-key order (per-key-order.ts) runs each key's
 * records one after another and parks a record behind an older one of its key.
 */

/** One record of a batch as read (step 1), with where it was read. Never changed after. */
export interface Entry extends Readonly<Delivery> {
  /** Its place in the batch. */
  readonly index: number;
  readonly reading: Reading;
  readonly offset: bigint;
  /** Carried out by this process in an earlier batch: not run again. */
  readonly doneBefore: boolean;
  /** Per-key order: the record's key (base64); undefined without a key, or without key order. */
  readonly keyId?: string;
}

/** A record parked behind an older record of its key. */
export type Park = Extract<Place, { kind: 'park' }>;

/** What a record's turn came to (step 2). */
export type Decided =
  | { readonly kind: 'done-before' }
  /** Not started: the runtime stops, the group rebalances, or the batch's time is up. */
  | { readonly kind: 'not-started' }
  /** Per-key order: a newer copy of it is in the chain; it is done. */
  | { readonly kind: 'left-behind' }
  /** Per-key order: copied behind an older record of its key. */
  | { readonly kind: 'parked'; readonly park: Park }
  /** Per-key order: an older record of its key in this batch (`head`, an index) failed first. */
  | { readonly kind: 'behind'; readonly head: number }
  | { readonly kind: 'ran'; readonly run: HandlerRun };

export const DONE_BEFORE: Decided = { kind: 'done-before' };
export const NOT_STARTED: Decided = { kind: 'not-started' };
export const LEFT_BEHIND: Decided = { kind: 'left-behind' };

export interface Ordering {
  /** Whether entries need their key (`keyId`). */
  readonly keyed: boolean;
  /**
   * The records to run, in lanes: a lane's records one after another, the lanes side by side.
   * Absent: every record is a lane of its own.
   */
  lanes?(entries: readonly Entry[]): Entry[][];
  /** Before a record runs: undefined to run it, or what it is instead (left behind, parked). */
  instead(entry: Entry): Decided | undefined;
  /** After a record ran: whether the records after it in its lane go on, or wait behind it. */
  goOn(entry: Entry, run: HandlerRun): boolean;
  /** The copy of a record parked behind `park`'s head. */
  parkedCopy(entry: Entry, park: Park): Copy;
  /** A record that waited behind a head now in a retry topic: parked behind it, or left for the next read. */
  behindHead(entry: Entry): Park | undefined;
  /** The headers a copy made at `madeAt` carries. */
  headers(copy: Copy, madeAt: number): CopyHeaders;
  /** A copy the broker acknowledged. */
  copied(entry: Entry, copy: Copy, madeAt: number): void;
  /** Copies were refused, and may have landed all the same. */
  refused(): void;
}

/** Every record side by side, each on its own. */
export const unordered: Ordering = {
  keyed: false,
  instead: () => undefined,
  goOn: () => true,
  parkedCopy: () => {
    throw new Error('unordered records are never parked');
  },
  behindHead: () => undefined,
  headers: (copy) => copy.headers,
  copied: () => undefined,
  refused: () => undefined,
};
