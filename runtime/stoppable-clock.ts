import type { Clock } from './clock';

/**
 * A clock whose sleeps all end, rejecting with the signal's reason, when one signal aborts: a
 * consumer's stop. It puts a single listener on that signal however many sleeps run at once
 * (a listener per sleep made Node warn, MaxListenersExceededWarning, past ten held messages).
 */
export function stoppableClock(clock: Clock, stop: AbortSignal): Clock {
  const sleeping = new Set<AbortController>();
  stop.addEventListener(
    'abort',
    () => {
      for (const each of sleeping) each.abort(stop.reason);
    },
    { once: true },
  );
  return {
    now: () => clock.now(),
    async sleep(ms) {
      if (stop.aborted) throw stop.reason;
      const own = new AbortController();
      sleeping.add(own);
      try {
        await clock.sleep(ms, own.signal);
      } finally {
        sleeping.delete(own);
      }
    },
  };
}
