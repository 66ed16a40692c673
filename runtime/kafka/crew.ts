import type { HandlerFailure } from '../run-handler';
import { afterFailure, contextOf, type Runtime, SUCCEEDED, succeeded } from './delivery';
import type { Decided, Entry, Ordering } from './ordering';

/** The turn of a record whose handler resolved at once: one for all of them. */
const RAN_AT_ONCE: Decided = { kind: 'ran', run: SUCCEEDED };

/**
 * One batch's records as the crew takes them: its lanes, in order (without lanes, every record
 * is a lane of its own). What each record's turn came to goes into `decided`, by its index.
 */
export class BatchWork {
  readonly done: Promise<void>;
  private resolve!: () => void;
  private reject!: (error: unknown) => void;
  /** The next lane to take. */
  private next = 0;
  /** Lanes taken and not ended. */
  private running = 0;
  private stopped = false;
  private readonly count: number;

  constructor(
    readonly runnable: readonly Entry[],
    readonly lanes: readonly Entry[][] | undefined,
    readonly ordering: Ordering,
    readonly decided: Decided[],
    /** Whether a record may start at `now`: false leaves it and every record after it for the next read. */
    readonly mayStart: (now: number) => boolean,
  ) {
    this.count = lanes ? lanes.length : runnable.length;
    this.done = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (this.count === 0) this.resolve();
  }

  /** Lanes left to take. */
  get left(): number {
    return this.stopped ? 0 : this.count - this.next;
  }

  /** A lane is left to take. */
  get open(): boolean {
    return !this.stopped && this.next < this.count;
  }

  /** Takes the next lane: its index. */
  take(): number {
    this.running++;
    return this.next++;
  }

  /** No lane starts any more; those running end as they do. */
  stop(): void {
    this.stopped = true;
  }

  /** A lane taken has ended. */
  ended(): void {
    this.running--;
    if (!this.open && this.running === 0) this.resolve();
  }

  /** A step failed that should not: the batch fails (its records are read again). */
  fail(error: unknown): void {
    this.stopped = true;
    this.reject(error);
  }
}

/**
 * A consumer's handler calls: at most `limit` at once, across its batches. Each worker runs one
 * lane after another, taking each from the next batch in line, so the partitions' batches take
 * turns: a batch of 500 records does not make every other partition wait for all 500.
 *
 * A worker runs the handler in its own frame. Handing each record to a task of its own, or
 * waiting for a slot per record, cost a promise and a frame per record, most of what the engine
 * allocated on the happy path.
 */
export class Crew {
  private workers = 0;
  /** Batches with lanes left, in turn; served from `head`. */
  private line: BatchWork[] = [];
  private head = 0;

  constructor(
    readonly limit: number,
    private readonly rt: Runtime,
  ) {}

  /** Entries the line holds, served ones not yet dropped included. */
  get retained(): number {
    return this.line.length;
  }

  /** Runs the batch's lanes; resolves once every lane taken has ended and none is left. */
  run(work: BatchWork): Promise<void> {
    if (!work.open) return work.done;
    this.line.push(work);
    for (let more = Math.min(this.limit - this.workers, work.left); more > 0; more--) {
      this.workers++;
      void this.work();
    }
    return work.done;
  }

  /** The batch whose turn it is, back in line after it if it has more lanes. */
  private take(): { work: BatchWork; at: number } | undefined {
    while (this.head < this.line.length) {
      const work = this.line[this.head++] as BatchWork;
      if (!work.open) continue;
      const at = work.take();
      if (work.open) this.line.push(work);
      // Served turns are dropped in bulk, not one by one.
      if (this.head >= 1_024 && this.head * 2 >= this.line.length) {
        this.line = this.line.slice(this.head);
        this.head = 0;
      }
      return { work, at };
    }
    this.line = [];
    this.head = 0;
    return undefined;
  }

  /** One worker: lanes until none is left in line. */
  private async work(): Promise<void> {
    const { rt } = this;
    try {
      for (let turn = this.take(); turn; turn = this.take()) {
        const { work, at } = turn;
        const lane = work.lanes?.[at];
        const size = lane ? lane.length : 1;
        try {
          for (let place = 0; place < size; place++) {
            const entry = (lane ? lane[place] : work.runnable[at]) as Entry;
            const instead = work.ordering.instead(entry);
            if (instead) {
              work.decided[entry.index] = instead;
              continue;
            }
            // Not started: left uncommitted, for this member or the next owner to read again.
            // The reasons (stopping, rebalancing, time up) hold for every record after it too.
            // One reading of the clock per record: it is a call into the VM, and it counted.
            const started = rt.clock.now();
            if (!work.mayStart(started)) {
              work.stop();
              break;
            }
            let failure: HandlerFailure | undefined;
            try {
              await rt.handler(entry.message, contextOf(rt, entry, entry.reading));
            } catch (error) {
              failure = { error, started, ended: rt.clock.now() };
            }
            const run = failure
              ? await afterFailure(rt, entry, entry.reading, failure)
              : succeeded(rt, started);
            work.decided[entry.index] = run === SUCCEEDED ? RAN_AT_ONCE : { kind: 'ran', run };
            if (work.ordering.goOn(entry, run)) continue;
            // Per-key order: the records after it in its lane wait behind it.
            for (const later of lane?.slice(place + 1) ?? []) {
              work.decided[later.index] = { kind: 'behind', head: entry.index };
            }
            break;
          }
        } catch (error) {
          work.fail(error);
        } finally {
          work.ended();
        }
      }
    } finally {
      this.workers--;
    }
  }
}
