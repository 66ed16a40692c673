import type { Clock } from '../../runtime/clock';

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * A clock that moves only when a test says so. `advance` fires due timers in time order and lets
 * the promise chains they start run before moving on.
 */
export class FakeClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 10, 30, 9, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.timers = this.timers.filter((each) => each !== timer);
        reject(signal?.reason);
      };
      const timer: Timer = {
        at: this.current + Math.max(0, ms),
        seq: this.seq++,
        resolve: () => {
          // As the system clock does: a finished sleep leaves no listener on the signal.
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.timers.push(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Timers waiting now. */
  get pending(): number {
    return this.timers.length;
  }

  async advance(ms: number): Promise<void> {
    const until = this.current + ms;
    for (;;) {
      await flush();
      const next = this.timers
        .filter((timer) => timer.at <= until)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.timers = this.timers.filter((timer) => timer !== next);
      this.current = next.at;
      next.resolve();
    }
    this.current = until;
    await flush();
  }
}

/** Lets pending promise callbacks run. */
export async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
}
