import type { ReplayProgress } from '../../runtime/dead-letters';

const WIDTH = 24;
/** Redraws at most this often: a terminal does not need more, and a slow one would lag. */
const EVERY_MS = 100;

/** A one-line progress bar redrawn in place; only ever given a terminal. */
export function progressBar(write: (text: string) => void, now: () => number, verb: string) {
  let last = 0;
  let drawn = false;
  const draw = (progress: ReplayProgress, force: boolean) => {
    const at = now();
    if (!force && at - last < EVERY_MS) return;
    last = at;
    const share = progress.selected === 0 ? 1 : progress.replayed / progress.selected;
    const filled = Math.round(share * WIDTH);
    const elapsed = Math.max(1, at - progress.startedAt) / 1_000;
    const rate = progress.replayed / elapsed;
    const left = rate > 0 ? Math.ceil((progress.selected - progress.replayed) / rate) : undefined;
    const eta = left === undefined ? '' : `  eta ${left}s`;
    write(
      `\r\x1b[2K${verb} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${progress.replayed}/${progress.selected}  ${rate.toFixed(1)}/s${eta}`,
    );
    drawn = true;
  };
  return {
    update: (progress: ReplayProgress) => draw(progress, progress.replayed === progress.selected),
    end: () => {
      if (drawn) write('\n');
    },
  };
}
