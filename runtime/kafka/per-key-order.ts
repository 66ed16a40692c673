import type { Clock } from '../clock';
import type { HandlerRun } from '../run-handler';
import { place } from './chain-keys';
import type { Chain, Chains } from './chains';
import { copiedAtOf, KAFKA_HEADERS, parkedCopyHeaders } from './headers';
import { type Decided, type Entry, LEFT_BEHIND, type Ordering, type Park } from './ordering';
import type { Copy } from './route';

/**
 * Per-key order on the batched engine, for one batch of a chain (chains.ts): each key's records
 * one after another; a key's turn ends at its first record that goes to a retry topic or the
 * dead letter, and those after it wait for that copy; a record whose key has an older record in
 * the chain is parked behind it (chain-keys.ts).
 */
export class PerKeyOrder implements Ordering {
  readonly keyed = true;

  constructor(
    private readonly chain: Chain,
    private readonly chains: Chains,
    private readonly clock: Clock,
    private readonly deadLetterTopic: string,
  ) {}

  lanes(entries: readonly Entry[]): Entry[][] {
    const lanes = new Map<string, Entry[]>();
    const alone: Entry[][] = [];
    for (const entry of entries) {
      if (entry.keyId === undefined) {
        alone.push([entry]);
        continue;
      }
      const lane = lanes.get(entry.keyId);
      if (lane) lane.push(entry);
      else lanes.set(entry.keyId, [entry]);
    }
    return [...lanes.values(), ...alone];
  }

  instead(entry: Entry): Decided | undefined {
    // The happy path: nothing of the key in the chain, so it runs (what `place` would say).
    if (entry.keyId === undefined || this.chain.keys.unknown(entry.keyId)) return undefined;
    const placed = place(this.chain.keys, this.placing(entry));
    if (placed.kind === 'left-behind') return LEFT_BEHIND;
    if (placed.kind === 'park') return { kind: 'parked', park: placed };
    return undefined;
  }

  goOn(entry: Entry, run: HandlerRun): boolean {
    const { keyId } = entry;
    const { sequence } = entry.reading;
    if (keyId === undefined) return true;
    if (run.decision.kind !== 'ack') return false;
    // Out of the chain (a crash before the commit runs it again: a duplicate, in order).
    if (sequence !== undefined) this.chain.keys.remove(keyId, sequence);
    return true;
  }

  parkedCopy(entry: Entry, park: Park): Copy {
    const headers = parkedCopyHeaders({
      incoming: entry.message.headers,
      origin: entry.reading.origin,
      attempt: entry.reading.attempt,
      notBefore: park.notBefore,
    });
    return { destination: park.topic, headers, notBefore: park.notBefore };
  }

  behindHead(entry: Entry): Park | undefined {
    const placed = place(this.chain.keys, this.placing(entry));
    return placed.kind === 'park' ? placed : undefined;
  }

  /** Each copy carries the time it was made: how the chain's index tells a record's newest copy from those it left behind. */
  headers(copy: Copy, madeAt: number) {
    return { ...copy.headers, [KAFKA_HEADERS.copiedAt]: String(madeAt) };
  }

  /** An acknowledged copy, in the chain's index: the record's newest copy, or out of the chain. */
  copied(entry: Entry, copy: Copy, madeAt: number): void {
    const { keyId } = entry;
    const { sequence } = entry.reading;
    if (keyId === undefined || sequence === undefined) return;
    if (copy.destination === this.deadLetterTopic) this.chain.keys.remove(keyId, sequence);
    else {
      this.chain.keys.put(keyId, {
        sequence,
        topic: copy.destination,
        producedAt: madeAt,
        ...(copy.notBefore === undefined ? {} : { notBefore: copy.notBefore }),
      });
    }
  }

  /** A refused copy may have landed all the same: the chain is read again before anything else runs. */
  refused(): void {
    this.chains.readAgain(this.chain);
  }

  private placing(entry: Entry) {
    const d = entry;
    return {
      keyId: entry.keyId,
      sequence: entry.reading.sequence,
      fromSource: d.role === 'main',
      topic: d.topic,
      // A copy by the time this runtime made it (its header), never by the broker's stamp.
      timestamp: d.role === 'main' ? Number(d.message.timestamp) : copiedAtOf(d.message),
      now: this.clock.now(),
    };
  }
}
