import type { Clock, Random } from '../clock';
import { RetryTopologyError } from '../errors';

/** How long to wait between tries of a copy the broker refused (a full wait queue). */
export interface RefusedPublishBackoff {
  /** The first wait; at most an eighth of the longest, so a short level is tried often. */
  initialMs: number;
  /** The longest wait; a quarter of the level's own wait caps it too. */
  maxMs: number;
}

interface Held {
  publish: () => Promise<void>;
  done: (outcome: 'sent' | 'stopped') => void;
  failed: (error: unknown) => void;
  onRefused: (error: unknown) => void;
}

/**
 * Copies a full wait queue refused, held in one line per destination. Only the head of a line
 * is tried, again and again with a growing, jittered wait; once it goes through, the next is
 * tried at once. So however many copies are held, the broker sees one try at a time per level
 * (no stampede when the queue has room again, no synchronised waves), the copies go out oldest
 * first, and a line moves about as fast as its queue drains: a wait queue with a TTL of d has
 * room again within d, so no wait is longer than d/4.
 *
 * A copy is published straight away unless its destination already has a line; then it joins
 * the end (the queue is full, and those before it were first).
 */
export class HeldPublishes {
  private readonly lines = new Map<string, Held[]>();

  /** `clock` must end its sleeps when `stop` aborts (stoppableClock). */
  constructor(
    private readonly clock: Clock,
    private readonly random: Random,
    private readonly backoff: RefusedPublishBackoff,
    private readonly stop: AbortSignal,
  ) {}

  /** Resolves 'sent' once the broker took it, 'stopped' when the consumer stopped first. */
  publish(
    destination: string,
    levelWaitMs: number,
    publish: () => Promise<void>,
    onRefused: (error: unknown) => void,
  ): Promise<'sent' | 'stopped'> {
    if (this.lines.has(destination)) return this.join(destination, levelWaitMs, publish, onRefused);
    // The usual case, no line: one publish, no extra async step on the hot path.
    return publish().then(SENT, (error) => {
      if (!isRefusal(error)) throw error;
      onRefused(error);
      return this.join(destination, levelWaitMs, publish, onRefused);
    });
  }

  private join(
    destination: string,
    levelWaitMs: number,
    publish: () => Promise<void>,
    onRefused: (error: unknown) => void,
  ): Promise<'sent' | 'stopped'> {
    return new Promise((done, failed) => {
      const held: Held = { publish, done, failed, onRefused };
      const line = this.lines.get(destination);
      if (line) line.push(held);
      else {
        this.lines.set(destination, [held]);
        void this.run(destination, levelWaitMs, true);
      }
    });
  }

  /** Tries the head of a line until the line is empty or the consumer stops. */
  private async run(destination: string, levelWaitMs: number, refusedFirst: boolean): Promise<void> {
    const line = this.lines.get(destination) as Held[];
    // A level with a wait of d frees room within d; trying at least every d/4 keeps a line within
    // about 10 % of the level's drain rate (40 copies, max-length 0–20, d 0.3–4 s, on a fake clock).
    const capMs = Math.max(1, Math.min(this.backoff.maxMs, levelWaitMs / 4));
    const firstMs = Math.min(this.backoff.initialMs, capMs / 8);
    let refusals = refusedFirst ? 1 : 0;
    while (line.length > 0) {
      const head = line[0] as Held;
      try {
        if (this.stop.aborted) throw this.stop.reason;
        if (refusals > 0) {
          // Equal jitter over an exponential bound: never two tries at once, never a long idle gap.
          const bound = Math.min(capMs, firstMs * 2 ** (refusals - 1));
          await this.clock.sleep(bound / 2 + this.random() * (bound / 2));
        }
      } catch {
        this.lines.delete(destination);
        for (const each of line.splice(0)) each.done('stopped');
        return;
      }
      try {
        await head.publish();
        line.shift();
        head.done('sent');
        refusals = 0;
      } catch (error) {
        if (isRefusal(error)) {
          head.onRefused(error);
          refusals++;
        } else {
          line.shift();
          head.failed(error);
        }
      }
    }
    this.lines.delete(destination);
  }
}

const SENT = () => 'sent' as const;

function isRefusal(error: unknown): boolean {
  return error instanceof RetryTopologyError && error.code === 'publish-refused';
}
