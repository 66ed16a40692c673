import type { Clock, Random } from '../clock';

/** The window the hard limit is kept in: "50/s" means no more than 50 in any one second. */
const WINDOW_MS = 1_000;
/** How far behind the schedule may fall and still be kept; see wait(). */
const CATCH_UP_MS = 10;

/**
 * Paces a replay at `perSecond` with jitter, so replaying a dead-letter queue does not become the
 * wave the policy's jitter was written to prevent.
 *
 * Time is cut into back-to-back slots of 1/perSecond; each message goes at a uniformly random
 * point of its own slot, so the mean rate is the requested one and the sends are spread, not in
 * step. Jitter alone could still put two slots' messages close together where a window cuts
 * them, so a message also waits until it is more than a second after the one `perWindow` before
 * it: no one-second window ever holds more than the rate (its whole part; at least 1). Late
 * timers do not slow it down (the schedule holds while it is less than a slot or 10 ms behind),
 * and a stall is not followed by a catch-up burst (further behind, it starts again from now).
 */
export class Pacer {
  private readonly intervalMs: number;
  private readonly perWindow: number;
  private nextSlot: number | undefined;
  /** When the last `perWindow` messages went, as a ring. */
  private readonly recent: number[] = [];
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

  /** Resolves when the next message may go, with the time it may go at (now, or just after). */
  async wait(signal?: AbortSignal): Promise<number> {
    const now = this.clock.now();
    const planned = this.nextSlot ?? now;
    // Behind by up to a slot or 10 ms (a timer that fired late, a busy event loop): keep the
    // schedule, or every late timer would slow the replay down (100/s reached 65/s, 500/s 207/s
    // on the loaded machine). What goes at once to catch up is at most 10 ms' worth. Behind by
    // more (a slow broker call): start again from now, so a stall is not followed by a burst.
    const slot = now - planned > Math.max(this.intervalMs, CATCH_UP_MS) ? now : planned;
    this.nextSlot = slot + this.intervalMs;
    let at = slot + this.random() * this.intervalMs;
    const index = this.sent % this.perWindow;
    const windowStart = this.recent[index];
    if (windowStart !== undefined) at = Math.max(at, windowStart + WINDOW_MS + 1);
    // Less than a millisecond to go is now: a timer cannot wait less than 1 ms, and at high rates
    // sleeping it for every message was the whole cost (180/s asked 1,000,000/s). The clock counts
    // whole ms, so the one-second cap holds. A timer may also fire early: wait until it is time.
    while (at - this.clock.now() >= 1) await this.clock.sleep(Math.ceil(at - this.clock.now()), signal);
    const went = this.clock.now();
    this.recent[index] = went;
    this.sent++;
    return went;
  }
}
