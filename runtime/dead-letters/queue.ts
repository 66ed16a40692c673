/**
 * A small hand-over queue between a push-driven client (a Kafka consumer's callbacks) and a
 * pull-driven command. `push` waits while the queue is full, so the client never reads far ahead;
 * `fail` ends every waiting pull with the error.
 */
export class HandOver<T> {
  private readonly items: T[] = [];
  private readonly takers: Array<{
    resolve: (item: T | undefined) => void;
    reject: (error: unknown) => void;
  }> = [];
  private readonly roomWaiters: Array<() => void> = [];
  private ended = false;
  private error: unknown;

  constructor(private readonly capacity: number) {}

  async push(item: T): Promise<void> {
    while (this.items.length >= this.capacity && !this.ended) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    }
    if (this.ended) return;
    const taker = this.takers.shift();
    if (taker) taker.resolve(item);
    else this.items.push(item);
  }

  /** The next item; undefined once ended and empty. */
  async pull(): Promise<T | undefined> {
    if (this.items.length > 0) {
      const item = this.items.shift() as T;
      this.roomWaiters.shift()?.();
      return item;
    }
    if (this.error !== undefined) throw this.error;
    if (this.ended) return undefined;
    return new Promise((resolve, reject) => this.takers.push({ resolve, reject }));
  }

  /** No more items: pulls drain what is left, then get undefined. */
  end(): void {
    this.ended = true;
    for (const taker of this.takers.splice(0)) taker.resolve(undefined);
    for (const wake of this.roomWaiters.splice(0)) wake();
  }

  fail(error: unknown): void {
    if (this.ended) return;
    this.error = error;
    this.ended = true;
    this.items.length = 0;
    for (const taker of this.takers.splice(0)) taker.reject(error);
    for (const wake of this.roomWaiters.splice(0)) wake();
  }

  get size(): number {
    return this.items.length;
  }

  get isEnded(): boolean {
    return this.ended;
  }
}
