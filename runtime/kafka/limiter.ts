/**
 * At most `limit` tasks at once; the others wait in the order they came. The batched engine runs
 * every handler call of a consumer through one, so `concurrency` bounds them across the
 * consumer's partitions and across the records of each batch.
 */
export class Limiter {
  private running = 0;
  private waiting: Array<() => void> = [];
  private head = 0;

  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    // A slot is handed over by the task that ends (see below): `running` counts it still.
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting[this.head];
      if (next) {
        this.head++;
        next();
      } else {
        this.running--;
        // Drained: start the queue over instead of keeping what was taken from it.
        this.waiting = [];
        this.head = 0;
      }
    }
  }
}
