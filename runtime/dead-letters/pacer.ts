import type { Clock, Random } from '../clock';

/**
 * Paces a replay at `perSecond` with jitter, so replaying a dead-letter queue does not become the
 * wave the policy's jitter was written to prevent.
 *
 * Time is cut into back-to-back slots of 1/perSecond; each message goes at a uniformly random
 * point of its own slot. So the mean rate is the requested one, and in any window of W seconds at
 * most perSecond × W + 2 messages go: never faster than asked, beyond the two slots a window can
 * cut. A slot never starts in the past: after a slow send the next slot starts now, so a stall is
 * not followed by a catch-up burst. Several replays paced this way do not fall into step.
 */
export class Pacer {
  private readonly intervalMs: number;
  private nextSlot: number | undefined;

  constructor(
    perSecond: number,
    private readonly clock: Clock,
    private readonly random: Random,
  ) {
    if (!(perSecond > 0) || !Number.isFinite(perSecond)) throw new RangeError('the rate must be above 0');
    this.intervalMs = 1_000 / perSecond;
  }

  /** Resolves when the next message may go. */
  async wait(signal?: AbortSignal): Promise<void> {
    const now = this.clock.now();
    const slot = Math.max(this.nextSlot ?? now, now);
    this.nextSlot = slot + this.intervalMs;
    const at = slot + this.random() * this.intervalMs;
    const delay = Math.ceil(at - now);
    if (delay > 0) await this.clock.sleep(delay, signal);
  }
}
