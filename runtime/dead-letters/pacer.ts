import type { Clock, Random } from '../clock';

/** The window the hard limit is kept in: "50/s" means no more than 50 in any one second. */
const WINDOW_MS = 1_000;
/**
 * Beyond the second, from the confirmation of a copy to the send of the copy `perWindow` after
 * it. The broker already has a copy when it confirms it, so the second alone caps the copies
 * where the broker takes them; this covers a consumer that receives a copy a little after the
 * publisher had its confirmation (each side's network and event loop).
 */
export const PACER_MARGIN_MS = 10;
/** How far behind the schedule may fall and still be kept; see take(). */
const CATCH_UP_MS = 10;

/** One message's turn. */
export interface PacedTurn {
  /** When the pacer let it go (epoch ms): what a replayed copy carries as `retry-replayed-at`. */
  at: number;
  /**
   * Says the broker has confirmed the message, refused it, or it was never sent. Until then the
   * message counts as still arriving: the one `perWindow` after it waits. Later calls do nothing.
   */
  settled(): void;
}

/** When one message settled, and who waits for that. */
class Settlement {
  at: number | undefined;
  private readonly waiting = new Set<() => void>();

  settle(at: number): void {
    if (this.at !== undefined) return;
    this.at = at;
    for (const wake of [...this.waiting]) wake();
  }

  /** The time it settled, once it has; rejects if the signal aborts first. */
  until(signal?: AbortSignal): Promise<number> {
    const at = this.at;
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        this.waiting.delete(wake);
        reject(signal?.reason);
      };
      const wake = () => {
        this.waiting.delete(wake);
        signal?.removeEventListener('abort', onAbort);
        resolve(this.at as number);
      };
      this.waiting.add(wake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * Paces a replay at `perSecond` with jitter, so replaying a dead-letter queue does not become the
 * wave the policy's jitter was written to prevent.
 *
 * Time is cut into back-to-back slots of 1/perSecond; each message goes at a uniformly random
 * point of its own slot, so the mean rate is the requested one and the sends are spread, not in
 * step. On top of that a hard cap, `perWindow` (the rate's whole part; at least 1) in any one
 * second wherever the messages are counted: a message goes only more than a second (and
 * PACER_MARGIN_MS) after the one `perWindow` before it *settled* (its broker confirmation).
 * Counting from the confirmation rather than the send is what makes the cap hold where the
 * messages arrive: a publish that takes longer than the next one would otherwise bring the two
 * closer together at the broker than when they were sent (at 50/s, 51 to 53 arrived in one second
 * while the send times held 50). Late timers do not slow it down (the schedule holds while it is
 * less than a slot or 10 ms behind), and a stall is not followed by a catch-up burst (further
 * behind, it starts again from now).
 *
 * One turn at a time: take() again only once the last take() resolved.
 */
export class Pacer {
  private readonly intervalMs: number;
  private readonly perWindow: number;
  private nextSlot: number | undefined;
  /** How the last `perWindow` messages settled, as a ring. */
  private readonly recent: Settlement[] = [];
  private sent = 0;

  constructor(
    perSecond: number,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond)) throw new RangeError('the rate must be above 0');
    this.intervalMs = 1_000 / perSecond;
    this.perWindow = Math.max(1, Math.floor((perSecond * WINDOW_MS) / 1_000));
  }

  /**
   * Resolves when the next message may go, with the time it may go at (now, or just after); call
   * `settled()` on the turn once the broker has confirmed it, or it failed, or it was not sent.
   */
  async take(signal?: AbortSignal): Promise<PacedTurn> {
    const index = this.sent % this.perWindow;
    // The message `perWindow` before this one: until it settled it may still be arriving.
    const earlier = await this.recent[index]?.until(signal);
    const now = this.clock.now();
    const planned = this.nextSlot ?? now;
    // Behind by up to a slot or 10 ms (a timer that fired late, a busy event loop): keep the
    // schedule, or every late timer would slow the replay down (100/s reached 65/s, 500/s 207/s
    // on the loaded machine). What goes at once to catch up is at most 10 ms' worth. Behind by
    // more (a slow broker call): start again from now, so a stall is not followed by a burst.
    const slot = now - planned > Math.max(this.intervalMs, CATCH_UP_MS) ? now : planned;
    this.nextSlot = slot + this.intervalMs;
    let at = slot + this.random() * this.intervalMs;
    if (earlier !== undefined) at = Math.max(at, earlier + WINDOW_MS + PACER_MARGIN_MS);
    // Less than a millisecond to go is now: a timer cannot wait less than 1 ms, and at high rates
    // sleeping it for every message was the whole cost (180/s asked 1,000,000/s). The margin is
    // whole milliseconds, so this still leaves more than a second. A timer may also fire early:
    // wait until it is time.
    while (at - this.clock.now() >= 1) await this.clock.sleep(Math.ceil(at - this.clock.now()), signal);
    const went = this.clock.now();
    const settlement = new Settlement();
    this.recent[index] = settlement;
    this.sent++;
    return { at: went, settled: () => settlement.settle(this.clock.now()) };
  }

  /**
   * take() for a message that has arrived once it goes (nothing to confirm: `simulate` counts the
   * dependency's calls at the pacer's times).
   */
  async wait(signal?: AbortSignal): Promise<number> {
    const turn = await this.take(signal);
    turn.settled();
    return turn.at;
  }
}
