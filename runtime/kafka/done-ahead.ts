/**
 * The records of one topic-partition the batched engine carried out that the group's commit does
 * not cover yet, and that this member may read again: those past the first record it could not
 * carry out (a refused copy; the commit stays below it and the partition is read again from it
 * after a back-off), and those of a batch whose commit failed (the group rejoined: a member that
 * keeps the partition reads again from the last commit). Read again, they are skipped instead of
 * run and copied a second time; the next commit that lands past them forgets them.
 *
 * In memory only, and nothing is written in a commit's metadata: after a crash or a move to
 * another member every record from the group's commit runs again (duplicates, never a loss).
 * Skipping is safe whoever owns the partition meanwhile: a record in here had its outcome (the
 * ack, or an acknowledged copy) carried out by this process.
 */
export class DoneAhead {
  /**
   * Offset to the record's timestamp. A record read again has the same two; a topic deleted and
   * created again under its name starts its offsets over, and a new record taken for a done one
   * would be lost, so an offset alone does not make a record done.
   */
  private readonly done = new Map<bigint, string>();

  has(offset: bigint, timestamp: string): boolean {
    return this.done.get(offset) === timestamp;
  }

  add(offset: bigint, timestamp: string): void {
    this.done.set(offset, timestamp);
  }

  /** The group's commit reached `offset`: what is below it is never read again from here. */
  committed(offset: bigint): void {
    for (const each of this.done.keys()) if (each < offset) this.done.delete(each);
  }

  get size(): number {
    return this.done.size;
  }
}
