import { type Clock, systemClock } from '../clock';
import { writeArchive } from './archive';
import type { DeadLetterBroker } from './broker';
import { DeadLetterError } from './errors';
import { brokerFailure } from './failure';
import { type DeadLetterFilter, Selection } from './filter';
import type { PurgeReport } from './reports';
import { browseSelection } from './select';

export interface PurgeOptions {
  filter?: DeadLetterFilter;
  /**
   * The number of dead letters you expect to delete. Required unless it is a dry run; a purge
   * whose selection differs deletes nothing.
   */
  expect?: number;
  /** A new file that gets every selected message, flushed to disk, before anything is deleted. */
  archive?: string;
  /** Only report what would be deleted. True unless set to false. */
  dryRun?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: { selected: number; purged: number }) => void;
  clock?: Clock;
}

/**
 * What a purge refuses before it reads anything: a tool calls it before it connects, so a
 * mistake on the command line never waits for a broker.
 */
export function checkPurgeOptions(options: Pick<PurgeOptions, 'dryRun' | 'expect'>): void {
  if (options.dryRun === false && options.expect === undefined)
    throw new DeadLetterError(
      'expect-required',
      'a purge needs the number of dead letters it will delete (--expect N)',
    );
}

/**
 * Deletes the selected dead letters (Kafka: marks them purged). Refused unless `expect` equals
 * what the filter selects, so a purge never takes more than its author looked at.
 */
export async function purgeDeadLetters(
  broker: DeadLetterBroker,
  options: PurgeOptions,
): Promise<PurgeReport> {
  const clock = options.clock ?? systemClock;
  const dryRun = options.dryRun !== false;
  checkPurgeOptions(options);
  const browsed = await browseSelection(broker, options.filter ?? {}, {
    keepBodies: options.archive !== undefined,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const report: PurgeReport = {
    dryRun,
    locations: broker.locations,
    total: browsed.total,
    selected: browsed.selected.length,
    byReason: browsed.byReason,
    sample: browsed.selected.slice(0, 10).map((letter) => letter.id),
    purged: 0,
    notFound: 0,
    stopped: false,
  };
  if (dryRun) return report;
  if (options.expect !== report.selected) {
    const error = new DeadLetterError(
      'expect-mismatch',
      `the filter selects ${report.selected} dead letters, not the ${options.expect} expected; nothing was deleted`,
    );
    error.report = report;
    throw error;
  }
  if (report.selected === 0) return report;
  if (options.archive !== undefined) {
    await writeArchive(options.archive, browsed.selected, clock.now());
    report.archive = { path: options.archive, messages: browsed.selected.length };
  }

  const selection = new Selection(browsed.selected.map((letter) => letter.id));
  let claim: Awaited<ReturnType<DeadLetterBroker['claim']>>;
  try {
    claim = await broker.claim(options.signal);
  } catch (error) {
    throw withReport(brokerFailure(error, 'taking the dead letters failed; nothing was deleted'), report);
  }
  let failure: unknown;
  try {
    while (selection.size > 0 && !options.signal?.aborted) {
      const letter = await claim.next();
      if (!letter) break;
      if (!selection.take(letter.id)) continue;
      if ((await claim.remove(letter)) === 'released') {
        selection.putBack(letter.id);
        continue;
      }
      report.purged++;
      options.onProgress?.({ selected: report.selected, purged: report.purged });
    }
  } catch (error) {
    failure = error;
  }
  await claim.close().catch((error: unknown) => {
    failure ??= error;
  });
  report.stopped = options.signal?.aborted === true && failure === undefined;
  report.notFound = report.stopped || failure !== undefined ? 0 : selection.size;
  if (failure !== undefined) {
    throw withReport(
      brokerFailure(
        failure,
        `the purge stopped after ${report.purged} of ${report.selected}; the rest are still dead-lettered`,
      ),
      report,
    );
  }
  return report;
}

function withReport(error: DeadLetterError, report: PurgeReport): DeadLetterError {
  error.report ??= { ...report };
  return error;
}
