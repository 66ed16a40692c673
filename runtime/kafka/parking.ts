import type { ChainEntry } from './chain-index';

/**
 * Park-key ordering as two pure decisions over the key's copies in the chain (ChainIndex). The
 * rule: a record is handled only when no older record of its key (a smaller source offset) is
 * still in the chain. Otherwise it is parked: produced behind the key's head (its oldest record)
 * in the topic where the head's newest copy sits, due when the head is. The order of the copies
 * in the logs never decides anything; the source offset does, so a parked record that ends up
 * ahead of an older one is simply parked again when it is reached.
 */

export type Placement =
  | { kind: 'handle' }
  | { kind: 'park'; topic: string; notBefore: number; head: ChainEntry };

/** The oldest record of the key in the chain, as its newest copy (a move leaves two for a moment). */
export function headOf(chain: ChainEntry[]): ChainEntry | undefined {
  let head: ChainEntry | undefined;
  for (const entry of chain) {
    if (entry.sequence === undefined) continue;
    if (
      !head ||
      entry.sequence < (head.sequence as number) ||
      (entry.sequence === head.sequence && entry.producedAt > head.producedAt)
    )
      head = entry;
  }
  return head;
}

function parkBehind(head: ChainEntry, now: number): Placement {
  return { kind: 'park', topic: head.topic, notBefore: Math.max(now, head.notBefore ?? now), head };
}

/**
 * A record read from the source topic: handled now when its key has nothing in the chain, else
 * parked. Copies without a readable sequence (not produced by this runtime) do not hold a key.
 */
export function placeFromSource(chain: ChainEntry[], now: number): Placement {
  const head = headOf(chain);
  return head ? parkBehind(head, now) : { kind: 'handle' };
}

/**
 * A due record read from a retry topic, with sequence `sequence`: handled when it is the oldest
 * of its key in the chain (or has no sequence to compare), else parked again behind the head.
 */
export function placeInChain(chain: ChainEntry[], sequence: number | undefined, now: number): Placement {
  if (sequence === undefined) return { kind: 'handle' };
  const head = headOf(chain);
  if (!head || (head.sequence as number) >= sequence) return { kind: 'handle' };
  return parkBehind(head, now);
}
