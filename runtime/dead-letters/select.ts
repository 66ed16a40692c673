import type { DeadLetterBroker } from './broker';
import { brokerFailure } from './failure';
import { type DeadLetterFilter, matches } from './filter';
import type { DeadLetter, DeadLetterReasonGroup } from './types';

/** What a browse found for a replay or purge: the selection, and counts to report. */
export interface Browsed {
  /** Pending dead letters seen. */
  total: number;
  selected: DeadLetter[];
  byReason: Record<DeadLetterReasonGroup, number>;
}

/**
 * The first pass of replay and purge: read every dead letter, keep those the filter selects (up
 * to `max`, the first in the order the broker reads them, the same on every read). `keep` says whether the selected letters keep their bodies
 * (an archive needs them; a replay only needs ids).
 */
export async function browseSelection(
  broker: DeadLetterBroker,
  filter: DeadLetterFilter,
  options: { keepBodies: boolean; signal?: AbortSignal },
): Promise<Browsed> {
  const out: Browsed = {
    total: 0,
    selected: [],
    byReason: { permanent: 0, exhausted: 0, 'broker-rejected': 0, unknown: 0 },
  };
  try {
    for await (const letter of broker.browse(options.signal)) {
      if (letter.handled) continue;
      out.total++;
      if (!matches(letter, filter)) continue;
      if (filter.max !== undefined && out.selected.length >= filter.max) continue;
      out.byReason[letter.reason]++;
      out.selected.push(options.keepBodies ? letter : { ...letter, body: Buffer.alloc(0) });
    }
  } catch (error) {
    throw brokerFailure(error, 'reading the dead letters failed; nothing was changed');
  }
  return out;
}
