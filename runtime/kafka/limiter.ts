/**
 * At most `limit` tasks at once. The batched engine runs every handler call of a consumer through
 * one, so `concurrency` bounds them across the consumer's partitions and across the records of
 * each batch.
 *
 * Waiting tasks are in lanes, one per topic-partition, each in the order its tasks came, and a
 * freed slot goes to the lanes in turn: a batch of 500 records does not make every other
 * partition's records wait for all 500.
 */
export class Limiter {
  private running = 0;
  private waitingCount = 0;
  /** Lanes with tasks waiting; a lane goes to the back of the turn once it was served. */
  private readonly lanes = new Map<string, Line>();

  constructor(readonly limit: number) {}

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Entries the lanes hold, taken ones included: at most about twice `queued`, plus a few per lane. */
  get retained(): number {
    let total = 0;
    for (const line of this.lanes.values()) total += line.retained;
    return total;
  }

  async run<T>(task: () => Promise<T>, lane = ''): Promise<T> {
    if (this.running < this.limit) this.running++;
    // A slot is handed over by the task that ends (see below): `running` counts it still.
    else await new Promise<void>((resolve) => this.enqueue(lane, resolve));
    try {
      return await task();
    } finally {
      const next = this.take();
      if (next) next();
      else this.running--;
    }
  }

  private enqueue(lane: string, resolve: () => void): void {
    let line = this.lanes.get(lane);
    if (!line) {
      line = new Line();
      this.lanes.set(lane, line);
    }
    line.push(resolve);
    this.waitingCount++;
  }

  /** The next waiting task of the lane whose turn it is. */
  private take(): (() => void) | undefined {
    for (const [lane, line] of this.lanes) {
      const next = line.shift();
      this.lanes.delete(lane);
      if (line.size > 0) this.lanes.set(lane, line);
      this.waitingCount--;
      return next;
    }
    return undefined;
  }
}

/** One lane's waiting tasks: a queue whose taken entries are dropped in bulk, not one by one. */
class Line {
  private items: Array<() => void> = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  get retained(): number {
    return this.items.length;
  }

  push(item: () => void): void {
    this.items.push(item);
  }

  shift(): (() => void) | undefined {
    const item = this.items[this.head];
    this.head++;
    // Under a backlog that never drains the line would keep every entry it ever held: drop the
    // taken ones once they are half of it.
    if (this.head >= COMPACT_AT && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

/** Taken entries worth a copy of the line: small enough to bound it, large enough to copy seldom. */
const COMPACT_AT = 1_024;
