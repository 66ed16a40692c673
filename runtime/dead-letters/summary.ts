import { type DeadLetterFilter, matches } from './filter';
import type { DeadLetter, DeadLetterReasonGroup } from './types';

/** Age groups `list` counts by: under an hour, a day, a week, and older. */
export const AGE_GROUPS = [
  { name: '< 1h', belowMs: 3_600_000 },
  { name: '1h–1d', belowMs: 86_400_000 },
  { name: '1d–7d', belowMs: 7 * 86_400_000 },
  { name: '≥ 7d', belowMs: Number.POSITIVE_INFINITY },
] as const;

export type AgeGroup = (typeof AGE_GROUPS)[number]['name'] | 'unknown';

export interface Counted {
  name: string;
  count: number;
}

export interface Extreme {
  id: string;
  deadLetteredAt: number;
}

/** What `list` prints: counts of the pending dead letters, each grouping sorted by count. */
export interface DeadLetterSummary {
  locations: string[];
  /** Pending dead letters (on Kafka, not yet replayed or purged). */
  total: number;
  /** Of those, how many the filter selects (all of them without one). */
  selected: number;
  byReason: Record<DeadLetterReasonGroup, number>;
  /** Broker-rejected ones by the broker's own reason (x-death reason, Service Bus reason). */
  byBrokerReason: Counted[];
  byErrorName: Counted[];
  bySource: Counted[];
  byAge: Counted[];
  oldest?: Extreme;
  newest?: Extreme;
  /**
   * Kafka keeps records: those already replayed or purged, not counted above. `records` is how
   * many are still in the topic; `replayed` and `purged` count every one ever done.
   */
  handled?: { records: number; replayed: number; purged: number };
}

function sorted(counts: Map<string, number>): Counted[] {
  return [...counts]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

function ageOf(letter: DeadLetter, now: number): AgeGroup {
  if (letter.deadLetteredAt === undefined) return 'unknown';
  const age = Math.max(0, now - letter.deadLetteredAt);
  return AGE_GROUPS.find((group) => age < group.belowMs)?.name ?? '≥ 7d';
}

/** Counts one pass over the dead letters; a filter narrows every count to what it selects. */
export class SummaryBuilder {
  private total = 0;
  private selected = 0;
  private readonly byReason: Record<DeadLetterReasonGroup, number> = {
    permanent: 0,
    exhausted: 0,
    'broker-rejected': 0,
    unknown: 0,
  };
  private readonly byBrokerReason = new Map<string, number>();
  private readonly byErrorName = new Map<string, number>();
  private readonly bySource = new Map<string, number>();
  private readonly byAge = new Map<string, number>();
  private oldest: Extreme | undefined;
  private newest: Extreme | undefined;
  private handledRecords = 0;

  constructor(
    private readonly locations: string[],
    private readonly filter: DeadLetterFilter,
    private readonly now: number,
  ) {}

  add(letter: DeadLetter): void {
    if (letter.handled) {
      this.handledRecords++;
      return;
    }
    this.total++;
    if (!matches(letter, this.filter)) return;
    if (this.filter.max !== undefined && this.selected >= this.filter.max) return;
    this.selected++;
    this.byReason[letter.reason]++;
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    if (letter.brokerReason) bump(this.byBrokerReason, letter.brokerReason);
    bump(this.byErrorName, letter.errorName ?? '(none)');
    bump(this.bySource, letter.source ?? '(unknown)');
    bump(this.byAge, ageOf(letter, this.now));
    const at = letter.deadLetteredAt;
    if (at !== undefined) {
      if (!this.oldest || at < this.oldest.deadLetteredAt)
        this.oldest = { id: letter.id, deadLetteredAt: at };
      if (!this.newest || at > this.newest.deadLetteredAt)
        this.newest = { id: letter.id, deadLetteredAt: at };
    }
  }

  build(done?: { replayed: number; purged: number }): DeadLetterSummary {
    const ages = [...AGE_GROUPS.map((group) => group.name), 'unknown'];
    return {
      locations: this.locations,
      total: this.total,
      selected: this.selected,
      byReason: { ...this.byReason },
      byBrokerReason: sorted(this.byBrokerReason),
      byErrorName: sorted(this.byErrorName),
      bySource: sorted(this.bySource),
      // Ages keep their natural order, not their counts'.
      byAge: ages
        .filter((name) => this.byAge.has(name))
        .map((name) => ({ name, count: this.byAge.get(name) ?? 0 })),
      ...(this.oldest ? { oldest: this.oldest } : {}),
      ...(this.newest ? { newest: this.newest } : {}),
      ...(done ? { handled: { records: this.handledRecords, ...done } } : {}),
    };
  }
}
