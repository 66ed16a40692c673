import { type Clock, type Random, systemClock } from '../clock';
import type { DeadLetterBroker } from './broker';
import { brokerFailure } from './failure';
import { type DeadLetterFilter, matches } from './filter';
import { type PurgeOptions, purgeDeadLetters } from './purge';
import { type ReplayOptions, replayDeadLetters } from './replay';
import type { PurgeReport, ReplayReport } from './reports';
import { type DeadLetterSummary, SummaryBuilder } from './summary';
import type { DeadLetter } from './types';

/** The dead-letter commands for one target; each broker's adapter returns one of these. */
export interface DeadLetters {
  readonly locations: string[];
  readonly replayTo: string;
  /** Counts of what is dead-lettered. Read-only. */
  list(options?: { filter?: DeadLetterFilter; signal?: AbortSignal }): Promise<DeadLetterSummary>;
  /**
   * The selected dead letters themselves, a page at a time, in the order the broker reads them
   * (the same on every read), so pages neither repeat nor skip one while nothing arrives. Read-only.
   */
  show(options?: {
    filter?: DeadLetterFilter;
    skip?: number;
    limit?: number;
    signal?: AbortSignal;
  }): Promise<DeadLetter[]>;
  replay(options: ReplayOptions): Promise<ReplayReport>;
  purge(options: PurgeOptions): Promise<PurgeReport>;
}

export const SHOW_DEFAULT_LIMIT = 10;

export function deadLetterCommands(
  broker: DeadLetterBroker,
  world: { clock?: Clock; random?: Random } = {},
): DeadLetters {
  const clock = world.clock ?? systemClock;
  const withWorld = <T extends object>(options: T) => ({
    ...(world.clock ? { clock: world.clock } : {}),
    ...(world.random ? { random: world.random } : {}),
    ...options,
  });
  return {
    locations: broker.locations,
    replayTo: broker.replayTo,
    async list(options = {}) {
      const summary = new SummaryBuilder(broker.locations, options.filter ?? {}, clock.now());
      try {
        for await (const letter of broker.browse(options.signal)) summary.add(letter);
        return summary.build(await broker.doneCounts?.());
      } catch (error) {
        throw brokerFailure(error, 'reading the dead letters failed');
      }
    },
    async show(options = {}) {
      const filter = options.filter ?? {};
      const skip = options.skip ?? 0;
      const limit = Math.min(options.limit ?? SHOW_DEFAULT_LIMIT, filter.max ?? Number.POSITIVE_INFINITY);
      const page: DeadLetter[] = [];
      let matched = 0;
      if (limit <= 0) return page;
      try {
        for await (const letter of broker.browse(options.signal)) {
          if (!matches(letter, filter)) continue;
          if (matched++ < skip) continue;
          page.push(letter);
          if (page.length >= limit) break;
        }
      } catch (error) {
        throw brokerFailure(error, 'reading the dead letters failed');
      }
      return page;
    },
    replay: (options) => replayDeadLetters(broker, withWorld(options)),
    purge: (options) => purgeDeadLetters(broker, withWorld(options)),
  };
}
