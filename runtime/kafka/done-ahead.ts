/**
 * The records of one topic-partition the batched engine carried out past the first one it could
 * not (a refused copy): the commit stays below that one, the partition is read again from it
 * after a back-off, and these are then skipped instead of run a second time.
 *
 * In memory only, and nothing is written in a commit's metadata: after a crash or a move to
 * another member every record from the group's commit runs again (duplicates, never a loss).
 * Skipping is safe whoever owns the partition meanwhile: a record in here had its outcome (the
 * ack, or an acknowledged copy) carried out by this process.
 */
export class DoneAhead {
  private readonly done = new Set<bigint>();

  has(offset: bigint): boolean {
    return this.done.has(offset);
  }

  add(offset: bigint): void {
    this.done.add(offset);
  }

  /** The group's commit reached `offset`: what is below it is never read again from here. */
  committed(offset: bigint): void {
    for (const each of this.done) if (each < offset) this.done.delete(each);
  }

  get size(): number {
    return this.done.size;
  }
}
