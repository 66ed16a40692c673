import { type Clock, mathRandom, type Random, systemClock } from '../clock';
import type { DeadLetterBroker } from './broker';
import { DeadLetterError } from './errors';
import { brokerFailure } from './failure';
import { type DeadLetterFilter, Selection } from './filter';
import { type PacedTurn, Pacer } from './pacer';
import type { ReplayReport } from './reports';
import { browseSelection } from './select';

export interface ReplayOptions {
  filter?: DeadLetterFilter;
  /** Messages per second, with jitter (see Pacer). */
  ratePerSecond: number;
  /** Keep the attempt count the dead letter died with, instead of starting again at 1. */
  keepAttempts?: boolean;
  /** Only report what would be replayed. True unless set to false: acting is a decision. */
  dryRun?: boolean;
  /** Stops after the replays in flight; what is left stays dead-lettered. */
  signal?: AbortSignal;
  onProgress?: (progress: ReplayProgress) => void;
  clock?: Clock;
  random?: Random;
}

export interface ReplayProgress {
  selected: number;
  replayed: number;
  startedAt: number;
}

const SAMPLE = 10;

/**
 * What a replay refuses before it reads anything. `keepAttemptsUnsupported` is the broker's
 * reason, known from the plan alone (keepAttemptsUnsupported in locations.ts), so a tool can call
 * this before it connects and a mistake on the command line never waits for a broker.
 */
export function checkReplayOptions(
  options: Pick<ReplayOptions, 'ratePerSecond' | 'keepAttempts'>,
  keepAttemptsUnsupported: string | undefined,
): void {
  if (!(options.ratePerSecond > 0) || !Number.isFinite(options.ratePerSecond))
    throw new DeadLetterError(
      'invalid-option',
      `the rate must be above 0 per second, got ${options.ratePerSecond}`,
    );
  if (options.keepAttempts && keepAttemptsUnsupported)
    throw new DeadLetterError('invalid-option', `--keep-attempts cannot apply: ${keepAttemptsUnsupported}`);
}

/**
 * Replays the selected dead letters to where they came from, paced, each removed only after its
 * copy is confirmed. Safe to stop at any point and to run again: it goes on with what is still
 * dead-lettered. A broker failure mid-run throws `broker-failed` with the report so far.
 */
export async function replayDeadLetters(
  broker: DeadLetterBroker,
  options: ReplayOptions,
): Promise<ReplayReport> {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? mathRandom;
  checkReplayOptions(options, broker.keepAttemptsUnsupported);
  const started = clock.now();
  const browsed = await browseSelection(broker, options.filter ?? {}, {
    keepBodies: false,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const report: ReplayReport = {
    dryRun: options.dryRun !== false,
    locations: broker.locations,
    destination: broker.replayTo,
    total: browsed.total,
    selected: browsed.selected.length,
    byReason: browsed.byReason,
    sample: browsed.selected.slice(0, SAMPLE).map((letter) => letter.id),
    replayed: 0,
    notFound: 0,
    stopped: false,
    ratePerSecond: options.ratePerSecond,
    keepAttempts: options.keepAttempts ?? false,
    elapsedMs: 0,
  };
  if (report.dryRun || report.selected === 0) return report;

  const selection = new Selection(browsed.selected.map((letter) => letter.id));
  const pacer = new Pacer(options.ratePerSecond, clock, random);
  const progress = () =>
    options.onProgress?.({ selected: report.selected, replayed: report.replayed, startedAt: started });
  let failure: unknown;
  const inFlight = new Set<Promise<void>>();
  let claim: Awaited<ReturnType<DeadLetterBroker['claim']>>;
  try {
    claim = await broker.claim(options.signal, { ratePerSecond: options.ratePerSecond });
  } catch (error) {
    throw withReport(brokerFailure(error, 'taking the dead letters failed; nothing was changed'), report);
  }
  progress();
  try {
    while (failure === undefined && selection.size > 0 && !options.signal?.aborted) {
      const letter = await claim.next();
      if (!letter) break;
      if (!selection.take(letter.id)) continue;
      while (inFlight.size >= broker.maxInFlight) await Promise.race(inFlight);
      if (failure !== undefined) break;
      let turn: PacedTurn;
      try {
        turn = await pacer.take(options.signal);
      } catch {
        break; // stopped while waiting for its slot: this one stays dead-lettered
      }
      if (failure !== undefined) {
        turn.settled(); // a replay failed while this one waited: it is not sent
        break;
      }
      // The pacer counts the copy as arriving until its replay settles (confirmed, refused or
      // not sent), so no second holds more than the rate where the copies land either.
      const work = claim.replay(letter, { now: turn.at, keepAttempts: report.keepAttempts }).then(
        (settled) => {
          turn.settled();
          if (settled === 'released') {
            selection.putBack(letter.id);
            return;
          }
          report.replayed++;
          progress();
        },
        (error: unknown) => {
          turn.settled();
          failure ??= error;
        },
      );
      const tracked = work.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
    }
  } catch (error) {
    failure ??= error;
  }
  await Promise.all(inFlight);
  await claim.close().catch((error: unknown) => {
    failure ??= error;
  });
  report.stopped = options.signal?.aborted === true && failure === undefined;
  report.notFound = report.stopped || failure !== undefined ? 0 : selection.size;
  report.elapsedMs = clock.now() - started;
  if (failure !== undefined) {
    const left = report.selected - report.replayed;
    throw withReport(
      brokerFailure(
        failure,
        `the replay stopped after ${report.replayed} of ${report.selected}; the other ${left} are still dead-lettered (run it again to go on)`,
      ),
      report,
    );
  }
  return report;
}

function withReport<T extends DeadLetterError>(error: T, report: ReplayReport): T {
  error.report ??= { ...report };
  return error;
}
