/**
 * Every message of a fault run, counted: what the handler saw at each attempt and when, and where
 * the message ended. A message's fate is fixed by its number, so the expected end of every one is
 * known whatever the faults do.
 */

export const KINDS = ['ok', 'retry-once', 'retry-twice', 'exhausted', 'permanent'] as const;
export type Kind = (typeof KINDS)[number];

export const kindOf = (n: number): Kind => KINDS[n % KINDS.length] as Kind;

/** What the handler does with a message of this kind at this attempt. */
export function behaviour(kind: Kind, attempt: number): 'succeed' | 'transient' | 'permanent' {
  switch (kind) {
    case 'ok':
      return 'succeed';
    case 'retry-once':
      return attempt < 2 ? 'transient' : 'succeed';
    case 'retry-twice':
      return attempt < 3 ? 'transient' : 'succeed';
    case 'exhausted':
      return 'transient';
    case 'permanent':
      return 'permanent';
  }
}

export type Outcome = 'success' | 'exhausted' | 'permanent';
const EXPECTED: Record<Kind, Outcome> = {
  ok: 'success',
  'retry-once': 'success',
  'retry-twice': 'success',
  exhausted: 'exhausted',
  permanent: 'permanent',
};

interface Seen {
  attempt: number;
  at: number;
}

export interface Wait {
  id: string;
  level: number;
  from: number;
  to: number;
  plannedMs: number;
  latenessMs: number;
}

export class Ledger {
  readonly published = new Map<string, Kind>();
  private readonly deliveries = new Map<string, Seen[]>();
  private readonly failures = new Map<string, Seen[]>();
  private readonly successes = new Map<string, number>();
  private readonly deadLetters = new Map<string, string[]>();
  /** Dead letters already counted, by the copy's own publish id: a reader's redelivery is no new one. */
  private readonly deadLetterCopies = new Set<string>();
  /** Handlers running now. */
  running = 0;

  constructor(
    private readonly maxAttempts: number,
    private readonly delaysMs: readonly number[],
  ) {}

  publish(id: string, n: number): void {
    this.published.set(id, kindOf(n));
  }

  kind(id: string): Kind {
    const kind = this.published.get(id);
    if (!kind) throw new Error(`message ${id} was never published`);
    return kind;
  }

  delivered(id: string, attempt: number, at = Date.now()): void {
    push(this.deliveries, id, { attempt, at });
  }

  /** The handler failed transiently: the message now waits for its next attempt. */
  failed(id: string, attempt: number, at = Date.now()): void {
    push(this.failures, id, { attempt, at });
  }

  succeeded(id: string): void {
    this.successes.set(id, (this.successes.get(id) ?? 0) + 1);
  }

  deadLettered(id: string, reason: string, copy?: string): void {
    if (copy !== undefined) {
      if (this.deadLetterCopies.has(copy)) return;
      this.deadLetterCopies.add(copy);
    }
    push(this.deadLetters, id, reason);
  }

  /** Messages that failed an attempt before the last and have not been delivered again. */
  waiting(): number {
    let count = 0;
    for (const [id, failures] of this.failures) {
      const last = failures[failures.length - 1] as Seen;
      if (last.attempt >= this.maxAttempts) continue;
      const again = (this.deliveries.get(id) ?? []).some((each) => each.attempt > last.attempt);
      if (!again) count++;
    }
    return count;
  }

  /** What happened to one message, for a failure report. */
  trace(id: string) {
    return {
      id,
      kind: this.published.get(id),
      deliveries: this.deliveries.get(id) ?? [],
      failures: this.failures.get(id) ?? [],
    };
  }

  /** Published messages with no end yet. */
  unfinished(): string[] {
    return [...this.published.keys()].filter((id) => !this.successes.has(id) && !this.deadLetters.has(id));
  }

  /**
   * Every wait: from a message's first transient failure at attempt n to its first delivery at
   * attempt n + 1. A duplicate (the same attempt failing twice after a redelivery) does not start
   * a wait of its own: the first copy may already be waiting, and the earliest failure is the one
   * no retry may come before.
   */
  waits(): Wait[] {
    const out: Wait[] = [];
    for (const [id, failures] of this.failures) {
      const deliveries = this.deliveries.get(id) ?? [];
      const seen = new Set<number>();
      for (const failure of failures) {
        if (failure.attempt >= this.maxAttempts || seen.has(failure.attempt)) continue;
        seen.add(failure.attempt);
        const next = deliveries.find((each) => each.attempt === failure.attempt + 1 && each.at >= failure.at);
        if (!next) continue;
        const plannedMs = this.delaysMs[failure.attempt - 1] ?? 0;
        out.push({
          id,
          level: failure.attempt,
          from: failure.at,
          to: next.at,
          plannedMs,
          latenessMs: next.at - failure.at - plannedMs,
        });
      }
    }
    return out;
  }

  /** Where every message ended, against where it should have. */
  outcomes() {
    const lost: string[] = [];
    const wrong: Array<{ id: string; expected: Outcome; got: string }> = [];
    const both: string[] = [];
    for (const [id, kind] of this.published) {
      const succeeded = this.successes.has(id);
      const reasons = this.deadLetters.get(id) ?? [];
      if (!succeeded && reasons.length === 0) {
        lost.push(id);
        continue;
      }
      if (succeeded && reasons.length > 0) both.push(id);
      const got = succeeded ? 'success' : (reasons[0] as string);
      if (got !== EXPECTED[kind]) wrong.push({ id, expected: EXPECTED[kind], got });
    }
    const extra = (counts: Iterable<number>) =>
      [...counts].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    const perAttempt = new Map<string, number>();
    for (const [id, seen] of this.deliveries)
      for (const each of seen)
        perAttempt.set(`${id}#${each.attempt}`, (perAttempt.get(`${id}#${each.attempt}`) ?? 0) + 1);
    return {
      published: this.published.size,
      succeeded: this.successes.size,
      deadLettered: this.deadLetters.size,
      lost,
      wrong,
      both,
      duplicates: {
        /** Deliveries of the same message at the same attempt, beyond the first. */
        deliveries: extra(perAttempt.values()),
        /** Successful handler runs of a message beyond its first. */
        successes: extra(this.successes.values()),
        /** Dead letters of a message beyond its first. */
        deadLetters: extra([...this.deadLetters.values()].map((reasons) => reasons.length)),
        /** The most times one message was delivered at one attempt. */
        mostDeliveriesOfOneAttempt: Math.max(0, ...perAttempt.values()),
      },
    };
  }
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A node's fault window: from its kill until it is back, and how late a wait in it may be. */
export interface FaultWindow {
  start: number;
  end: number;
  /** The failover measured in this window, plus what the broker documents on top of it. */
  budgetMs: number;
}

/**
 * The broker's TTL clock and this process's clock may disagree by a few milliseconds (the broker
 * stamps the copy when it takes it, and fires expiry timers a little early or late).
 */
export const EARLY_TOLERANCE_MS = 50;

/**
 * The liveness bound of the fault tests: no wait may be this much longer than its delay. It only
 * catches a retry chain that stopped. How late waits are (tenths of a second to tens of seconds
 * on a loaded machine, depending on the failover) is measured and reported, never asserted: any
 * bound near it fails a run that lost nothing (docs/replication.md, BENCHMARKS.md).
 */
export const LIVENESS_MS = 300_000;

/**
 * How often one message may be delivered at one attempt in a run with `kills` node kills: once,
 * plus a redelivery for each rebalance or reconnect a kill causes (a Kafka kill moves partition
 * leaders, then the group coordinator, and the node's return moves them again: up to three). It
 * fails a redelivery loop, never an at-least-once duplicate.
 */
export const mostDeliveriesAllowed = (kills: number) => 1 + 3 * kills;

/**
 * Sorts the waits: early (before the delay), stuck (beyond the liveness bound), beyond the fault
 * budget (reported: later than the margin outside a fault window, or the window's budget inside
 * one), and those that ran through a fault window at all.
 */
export function judgeWaits(waits: readonly Wait[], windows: readonly FaultWindow[], marginMs: number) {
  const windowOf = (wait: Wait) =>
    windows.find((window) => wait.from <= window.end && wait.to >= window.start);
  return {
    early: waits.filter((wait) => wait.latenessMs < -EARLY_TOLERANCE_MS),
    stuck: waits.filter((wait) => wait.latenessMs > LIVENESS_MS),
    beyondBudget: waits.filter((wait) => wait.latenessMs > marginMs + (windowOf(wait)?.budgetMs ?? 0)),
    inWindows: waits.filter((wait) => windowOf(wait) !== undefined),
    outside: waits.filter((wait) => windowOf(wait) === undefined),
  };
}
