import type { Clock } from '../clock';
import type { ChainEntry } from './chain-index';
import type { ChainView } from './chain-view';
import { type Placement, placeFromSource, placeInChain } from './parking';

/**
 * Park-key ordering over the chain view: when a view is fresh enough to decide, and what is
 * decided (parking.ts).
 *
 * - A retry-topic record is placed on a snapshot begun after it was read: every older record
 *   of its key still in the chain is then in the view.
 * - A source record needs a fresh snapshot only when the view could be missing records another
 *   consumer put in the chain: after a (re)assignment, seen as a group join or a jump in the
 *   partition's offsets. Otherwise the view is a superset, and a key it does not hold is not in
 *   the chain. A key it does hold is checked on a fresh snapshot, so a key whose chain has just
 *   drained is not parked for nothing.
 */
/**
 * Between snapshots the index only grows; past this many copies a source record takes a fresh
 * snapshot first, which drops every copy that has left the chain. Copies are small (a key, a
 * few numbers), so this bounds memory, not correctness.
 */
const MAX_COPIES_BETWEEN_SNAPSHOTS = 10_000;

export class KeyOrdering {
  /** Per source partition, the offset of the last record placed. */
  private readonly lastSeen = new Map<number, bigint>();

  constructor(
    private readonly view: ChainView,
    private readonly clock: Clock,
  ) {}

  /** The consumer joined the group again: another member may have owned these partitions. */
  assigned(): void {
    this.lastSeen.clear();
  }

  async fromSource(partition: number, offset: string, keyId: string): Promise<Placement> {
    const previous = this.lastSeen.get(partition);
    const current = BigInt(offset);
    this.lastSeen.set(partition, current);
    let fresh = false;
    if (
      previous === undefined ||
      previous + 1n !== current ||
      this.view.index.size > MAX_COPIES_BETWEEN_SNAPSHOTS
    ) {
      await this.view.fresh();
      fresh = true;
    }
    if (!fresh && this.view.index.chainOf(partition, keyId).length > 0) await this.view.fresh();
    return placeFromSource(this.view.index.chainOf(partition, keyId), this.clock.now());
  }

  async inChain(partition: number, keyId: string, sequence: number | undefined): Promise<Placement> {
    await this.view.fresh();
    return placeInChain(this.view.index.chainOf(partition, keyId), sequence, this.clock.now());
  }

  /** A copy this process just produced into a retry topic, counted before the reader sees it. */
  produced(entry: ChainEntry): void {
    this.view.index.addLocal(entry, this.view.nextRound);
  }
}
