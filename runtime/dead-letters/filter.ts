import type { DeadLetter, DeadLetterReasonGroup } from './types';

/**
 * Which dead letters a command acts on. Every field narrows; an empty filter takes them all.
 * A time bound needs a known dead-lettering time: a dead letter without one never matches
 * --since or --until, so a bound never takes more than it says.
 */
export interface DeadLetterFilter {
  reasons?: readonly DeadLetterReasonGroup[];
  /** The error's name (`retry-error-name`), exactly. */
  errorNames?: readonly string[];
  /** Dead-lettered at or after (epoch ms). */
  since?: number;
  /** Dead-lettered before (epoch ms). */
  until?: number;
  /** Dead-letter ids (see DeadLetter.id) or message ids. */
  ids?: readonly string[];
  /** At most this many, oldest position first. */
  max?: number;
}

export function matches(letter: DeadLetter, filter: DeadLetterFilter): boolean {
  if (letter.handled) return false;
  if (filter.reasons?.length && !filter.reasons.includes(letter.reason)) return false;
  if (filter.errorNames?.length && !filter.errorNames.includes(letter.errorName ?? '')) return false;
  if (filter.since !== undefined || filter.until !== undefined) {
    const at = letter.deadLetteredAt;
    if (at === undefined) return false;
    if (filter.since !== undefined && at < filter.since) return false;
    if (filter.until !== undefined && at >= filter.until) return false;
  }
  if (filter.ids?.length) {
    const ids = filter.ids;
    if (!ids.includes(letter.id) && !(letter.messageId !== undefined && ids.includes(letter.messageId)))
      return false;
  }
  return true;
}

export function isEmptyFilter(filter: DeadLetterFilter): boolean {
  return (
    !filter.reasons?.length &&
    !filter.errorNames?.length &&
    filter.since === undefined &&
    filter.until === undefined &&
    !filter.ids?.length &&
    filter.max === undefined
  );
}

/**
 * The selection as a count per id. RabbitMQ ids are digests, and identical messages share one:
 * taking "two of digest d" is right whichever two copies the broker hands over.
 */
export class Selection {
  private readonly left = new Map<string, number>();
  private remaining = 0;

  constructor(ids: Iterable<string>) {
    for (const id of ids) {
      this.left.set(id, (this.left.get(id) ?? 0) + 1);
      this.remaining++;
    }
  }

  /** Takes one of `id` if the selection still wants one. */
  take(id: string): boolean {
    const count = this.left.get(id) ?? 0;
    if (count === 0) return false;
    if (count === 1) this.left.delete(id);
    else this.left.set(id, count - 1);
    this.remaining--;
    return true;
  }

  /** Gives one of `id` back: it was taken, but not acted on. */
  putBack(id: string): void {
    this.left.set(id, (this.left.get(id) ?? 0) + 1);
    this.remaining++;
  }

  get size(): number {
    return this.remaining;
  }
}
