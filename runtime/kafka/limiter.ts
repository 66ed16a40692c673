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
  /** Each lane's waiting tasks, while it has any. */
  private readonly lanes = new Map<string, Line>();
  /** The lanes with tasks waiting, in turn: served from the front, back in line if more wait. */
  private turns: Line[] = [];
  private turn = 0;

  constructor(readonly limit: number) {}

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Entries the lanes hold, taken ones included: at most about twice `queued`, plus a few per lane. */
  get retained(): number {
    let total = this.turns.length;
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
      line = new Line(lane);
      this.lanes.set(lane, line);
      this.turns.push(line);
    }
    line.push(resolve);
    this.waitingCount++;
  }

  /** The next waiting task of the lane whose turn it is. */
  private take(): (() => void) | undefined {
    const line = this.turns[this.turn];
    if (!line) return undefined;
    const next = line.shift();
    this.waitingCount--;
    if (this.turns.length - this.turn === 1) {
      // The only lane waiting keeps its turn.
      if (line.size === 0) this.drop(line);
      return next;
    }
    this.turn++;
    if (line.size > 0) this.turns.push(line);
    else this.lanes.delete(line.lane);
    // Served turns are dropped in bulk, as a line's taken tasks are.
    if (this.turn >= COMPACT_AT && this.turn * 2 >= this.turns.length) {
      this.turns = this.turns.slice(this.turn);
      this.turn = 0;
    }
    return next;
  }

  private drop(line: Line): void {
    this.lanes.delete(line.lane);
    this.turns = [];
    this.turn = 0;
  }
}

/** One lane's waiting tasks: a queue whose taken entries are dropped in bulk, not one by one. */
class Line {
  private items: Array<() => void> = [];
  private head = 0;

  constructor(readonly lane: string) {}

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
