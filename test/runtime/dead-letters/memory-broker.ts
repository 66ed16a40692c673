import type {
  Claim,
  DeadLetter,
  DeadLetterBroker,
  DeadLetterReasonGroup,
} from '../../../runtime/dead-letters';

/**
 * An in-memory dead-letter store for the broker-neutral core's tests: the same two passes a
 * broker gives (browse without taking, claim holding what it hands over), with every settled
 * call recorded, and failures or lost locks on demand.
 */
export class MemoryBroker implements DeadLetterBroker {
  readonly locations = ['memory.dlq'];
  readonly replayTo = 'memory.main';
  readonly stored: DeadLetter[] = [];
  readonly replayed: Array<{ id: string; now: number; keepAttempts: boolean }> = [];
  readonly removed: string[] = [];
  /** Letters held by an open claim. */
  readonly held = new Set<DeadLetter>();
  /** The n-th replay (from 0) throws. */
  failReplayAt: number | undefined;
  /** Ids whose first replay finds the lock gone. */
  readonly loseLockOnce = new Set<string>();
  maxInFlight = 1;
  keepAttemptsUnsupported?: string;

  add(count: number, make: (index: number) => Partial<DeadLetter> = () => ({})): this {
    for (let index = 0; index < count; index++) {
      this.stored.push({
        id: `d-${this.stored.length}`,
        location: 'memory.dlq',
        reason: 'exhausted' as DeadLetterReasonGroup,
        replays: 0,
        headers: {},
        properties: {},
        body: Buffer.from(`body ${index}`),
        ...make(index),
      });
    }
    return this;
  }

  async *browse(): AsyncIterable<DeadLetter> {
    for (const letter of [...this.stored]) if (!this.held.has(letter)) yield letter;
  }

  async claim(): Promise<Claim> {
    const queue = this.stored.filter((letter) => !this.held.has(letter));
    const mine = new Set<DeadLetter>();
    const take = (letter: DeadLetter) => {
      const found = [...mine].find((each) => each.id === letter.id);
      if (!found) throw new Error(`not held: ${letter.id}`);
      return found;
    };
    const drop = (letter: DeadLetter) => {
      mine.delete(letter);
      this.held.delete(letter);
      this.stored.splice(this.stored.indexOf(letter), 1);
    };
    return {
      next: async () => {
        const letter = queue.shift();
        if (letter) {
          mine.add(letter);
          this.held.add(letter);
        }
        return letter;
      },
      replay: async (letter, copy) => {
        const found = take(letter);
        if (this.loseLockOnce.delete(found.id)) {
          mine.delete(found);
          this.held.delete(found);
          queue.push(found);
          return 'released';
        }
        if (this.failReplayAt !== undefined && this.replayed.length === this.failReplayAt)
          throw new Error('connection closed');
        this.replayed.push({ id: found.id, ...copy });
        drop(found);
        return 'done';
      },
      remove: async (letter) => {
        const found = take(letter);
        this.removed.push(found.id);
        drop(found);
        return 'done';
      },
      close: async () => {
        for (const letter of mine) this.held.delete(letter);
        mine.clear();
      },
    };
  }
}
