import { KeyIndex } from './chain-keys';
import type { AdminLike, ConsumedMessage, EachBatchPayloadLike } from './contract';
import { KafkaRetryError } from './errors';
import { copiedAtOf, headerText, KAFKA_HEADERS, originOf } from './headers';
import type { KafkaRetryEvent } from './options';
import type { Positions } from './positions';

/**
 * Per-key order with one owner per chain. A chain is partition p of the source topic and
 * partition p of every retry topic. One consumer group reads them all, with range assignment
 * (chain-assigner.ts; librdkafka's `range`), so that one member holds a whole chain, and only
 * that member writes into the chain's retry partitions (a copy keeps its partition).
 *
 * After each assignment a member first reads its chains' retry partitions from the group's
 * commit to their end, indexing every record there by key (chain-keys.ts), and only then runs
 * anything in the chain: from then on it knows every record of its chains, because it made the
 * copies itself. A chain the member does not hold whole (another assignor, a partition count
 * that differs) is left paused, and reported: order first, then progress.
 */

export interface ChainsParts {
  /** The consumer's position owner: the chains' seeks, pauses and resumes go through it. */
  positions: Positions;
  admin: AdminLike;
  group: string;
  /**
   * The group the retry topics were read in before (`retryConsumerGroup`): where this group has
   * no commit on a retry partition yet, it starts from that group's.
   */
  formerGroup: string;
  sourceTopic: string;
  retryTopics: string[];
  emit: (event: KafkaRetryEvent) => void;
}

interface Scan {
  /** Where the group's commit is (or the log start): the partition is read again from here. */
  from: bigint;
  /** The end of the log when the chain was assigned: the chain's records are all below. */
  until: bigint;
}

interface ScanPlan {
  /** Per retry partition (`topic\u0000partition`): where to read it from, and to. */
  scans: Map<string, Scan>;
  /** Per partition of the chains, source and retry: the group's own commit, where it has one. */
  commits: Map<string, bigint>;
}

export class Chain {
  keys = new KeyIndex();
  /** planning: waiting for the log ends; scanning: reading the retry partitions to their end. */
  state: 'planning' | 'scanning' | 'ready' | 'split' = 'planning';
  /** Retry topics whose partition is still to be read to its end. */
  readonly scans = new Map<string, Scan>();
  /** Topics of the chain paused until it is ready. */
  readonly held = new Set<string>();
  /**
   * Per topic of the chain: the group's commit when the chain was read. A batch that begins
   * below it is read from a position the client kept from an earlier assignment (a seek made
   * then, applied when the partition came back), and never runs.
   */
  readonly floors = new Map<string, bigint>();
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly partition: number) {}

  /**
   * One batch of the chain at a time: the client may hand over batches of the source partition
   * and of a retry partition at once, and both read and change the key index.
   */
  serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    this.tail = run.catch(() => undefined);
    return run;
  }
}

export class Chains {
  private chains = new Map<number, Chain>();
  private scanPlan: Promise<ScanPlan> | undefined;
  /** Counts assignments: what a member remembers of its partitions is only good for one. */
  generation = 0;
  /** The position owner's number for the assignment the chains were made in. */
  private asOf = 0;

  constructor(private readonly parts: ChainsParts) {}

  /**
   * The member's new assignment (every partition it holds, of every topic). Resolves once the
   * retry partitions' positions are read (never rejects): the Confluent client waits for it
   * before it starts fetching.
   */
  assigned(assignment: Array<{ topic: string; partition: number }>): Promise<void> {
    const { sourceTopic, retryTopics } = this.parts;
    this.generation++;
    // Every change the chains ask for belongs to this assignment (positions.ts made it afresh,
    // every partition unpaused).
    this.asOf = this.parts.positions.current;
    this.chains = new Map();
    const held = new Map<number, Set<string>>();
    const ours = assignment.filter(({ topic }) => topic === sourceTopic || retryTopics.includes(topic));
    for (const { topic, partition } of ours) {
      const topics = held.get(partition) ?? new Set<string>();
      topics.add(topic);
      held.set(partition, topics);
    }
    for (const [partition, topics] of held) {
      const chain = new Chain(partition);
      if (topics.size < retryTopics.length + 1) chain.state = 'split';
      this.chains.set(partition, chain);
    }
    this.scanPlan = undefined;
    // Read the log ends now, not at the first batch: a retry partition the group never committed
    // on must be moved to its start before anything is read from it.
    return this.plan().then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * A copy into the chain was refused, and may have landed all the same (a lost reply): the
   * index may miss it, so the chain is read again from its commits before anything else runs.
   * Without that, the record would run again, and its stray copy later, after the key's next.
   */
  readAgain(chain: Chain): void {
    if (chain.state === 'split') return;
    chain.keys = chain.keys.afresh();
    chain.scans.clear();
    chain.state = 'planning';
    this.scanPlan = undefined;
  }

  /** The member lost its partitions (the Confluent client says so; KafkaJS's next join does). */
  revoked(): void {
    this.generation++;
    this.chains = new Map();
    this.scanPlan = undefined;
  }

  of(partition: number): Chain | undefined {
    return this.chains.get(partition);
  }

  /**
   * Whether a batch of the chain may run now; called in the chain's turn. Until the chain is
   * ready its batches are read for the index (retry topics) or paused (the source topic).
   */
  async admit(chain: Chain, payload: EachBatchPayloadLike): Promise<boolean> {
    const { topic, partition, messages } = payload.batch;
    const first = messages[0] as ConsumedMessage;
    if (chain.state === 'split') {
      this.hold(chain, topic, first.offset);
      this.parts.emit({
        type: 'failed',
        role: topic === this.parts.sourceTopic ? 'main' : 'retry',
        topic,
        partition,
        offset: first.offset,
        error: new KafkaRetryError(
          'chain-split',
          `this member holds ${topic}[${partition}] but not partition ${partition} of every topic of the chain: ` +
            'paused to keep key order; give every consumer of the group range assignment',
        ),
      });
      return false;
    }
    if (chain.state === 'planning') {
      const scanPlan = await this.plan();
      if (this.chains.get(chain.partition) !== chain) return false;
      for (const retryTopic of this.parts.retryTopics) {
        const scan = scanPlan.scans.get(`${retryTopic}\u0000${chain.partition}`);
        if (scan && scan.from < scan.until) chain.scans.set(retryTopic, scan);
      }
      for (const chainTopic of [this.parts.sourceTopic, ...this.parts.retryTopics]) {
        const commit = scanPlan.commits.get(`${chainTopic}\u0000${chain.partition}`);
        if (commit !== undefined) chain.floors.set(chainTopic, commit);
      }
      chain.state = 'scanning';
      // Each partition to read starts at its commit, wherever it was read to (a chain read
      // again), and even if a hold paused it.
      for (const [retryTopic, scan] of chain.scans) {
        if (retryTopic === topic && BigInt(first.offset) === scan.from) continue;
        this.restart(chain, retryTopic, scan.from);
      }
      const scan = chain.scans.get(topic);
      if (scan && BigInt(first.offset) !== scan.from) {
        // This batch starts elsewhere: the one from the commit comes next.
        return false;
      }
    }
    const floor = chain.floors.get(topic);
    if (floor !== undefined && BigInt(first.offset) < floor) {
      // Below the group's commit: what another member (or this one) committed never runs again.
      this.restart(chain, topic, floor);
      return false;
    }
    if (chain.state === 'scanning' && chain.scans.size === 0) this.ready(chain);
    if (chain.state === 'ready') return true;
    const scan = chain.scans.get(topic);
    if (!scan) {
      this.hold(chain, topic, first.offset);
      return false;
    }
    for (const message of messages) {
      const offset = BigInt(message.offset);
      // Below the commit (read before the seek to it took effect): out of the chain.
      if (offset < scan.from) continue;
      if (offset >= scan.until) break;
      this.index(chain, topic, message);
    }
    const last = messages[messages.length - 1] as ConsumedMessage;
    if (BigInt(last.offset) + 1n < scan.until) {
      payload.resolveOffset(last.offset);
      return false;
    }
    chain.scans.delete(topic);
    this.hold(chain, topic, String(scan.from));
    if (chain.scans.size === 0) this.ready(chain);
    return false;
  }

  /** Every record of the chain, as its copy says: key, sequence, when produced and due. */
  private index(chain: Chain, topic: string, message: ConsumedMessage): void {
    if (!message.key) return;
    const origin = originOf(message.headers, { topic, partition: chain.partition, offset: message.offset });
    if (!origin.fromHeaders) return;
    const notBefore = Number(headerText(message.headers, KAFKA_HEADERS.notBefore));
    chain.keys.put(message.key.toString('base64'), {
      sequence: Number(origin.offset),
      topic,
      producedAt: copiedAtOf(message),
      ...(Number.isSafeInteger(notBefore) ? { notBefore } : {}),
      scanned: true,
    });
  }

  private ready(chain: Chain): void {
    chain.state = 'ready';
    for (const topic of chain.held) this.parts.positions.resume(topic, chain.partition, this.asOf);
    chain.held.clear();
  }

  private restart(chain: Chain, topic: string, from: bigint): void {
    const { positions } = this.parts;
    positions.seek(topic, chain.partition, String(from), this.asOf);
    positions.resume(topic, chain.partition, this.asOf);
  }

  private hold(chain: Chain, topic: string, offset: string): void {
    chain.held.add(topic);
    const { positions } = this.parts;
    positions.seek(topic, chain.partition, offset, this.asOf);
    positions.pause(topic, chain.partition, this.asOf);
  }

  /**
   * Per retry partition: the group's commit and the end of the log, read once per assignment.
   * A failure is thrown to the batch (held, read again after a back-off) and read again then.
   */
  private plan(): Promise<ScanPlan> {
    if (this.scanPlan) return this.scanPlan;
    const reading = this.read();
    this.scanPlan = reading;
    reading.catch(() => {
      if (this.scanPlan === reading) this.scanPlan = undefined;
    });
    return reading;
  }

  private async read(): Promise<ScanPlan> {
    const { admin, group, formerGroup, sourceTopic, retryTopics, positions } = this.parts;
    const owned = new Set(this.chains.keys());
    const asOf = this.asOf;
    const [committed, former, ...ends] = await Promise.all([
      admin.fetchOffsets({ groupId: group, topics: [sourceTopic, ...retryTopics] }),
      admin.fetchOffsets({ groupId: formerGroup, topics: retryTopics }),
      ...retryTopics.map((topic) => admin.fetchTopicOffsets(topic)),
    ]).catch((cause: unknown) => {
      throw new KafkaRetryError('chain-read-failed', 'reading the retry topics’ commits and ends failed', {
        cause,
      });
    });
    const plan: ScanPlan = { scans: new Map(), commits: new Map() };
    const commitOf = (offsets: typeof committed, topic: string, partition: number) =>
      BigInt(
        offsets.find((each) => each.topic === topic)?.partitions.find((each) => each.partition === partition)
          ?.offset ?? '-1',
      );
    for (const partition of owned) {
      const commit = commitOf(committed, sourceTopic, partition);
      if (commit < 0n) continue;
      plan.commits.set(`${sourceTopic}\u0000${partition}`, commit);
      positions.groupCommit(sourceTopic, partition, commit, asOf);
    }
    retryTopics.forEach((topic, index) => {
      for (const end of ends[index] ?? []) {
        if (!owned.has(end.partition)) continue;
        const own = commitOf(committed, topic, end.partition);
        // A deployment that read the retry topics in their own group (runRetry) moves to this one
        // where that group left off, not from the start of the log.
        const commit = own >= 0n ? own : commitOf(former, topic, end.partition);
        const low = BigInt(end.low);
        const from = commit < low ? low : commit;
        plan.scans.set(`${topic}\u0000${end.partition}`, { from, until: BigInt(end.high) });
        if (own >= 0n) {
          plan.commits.set(`${topic}\u0000${end.partition}`, from);
          positions.groupCommit(topic, end.partition, own, asOf);
        }
        // Never committed on in this group (or the commit fell off the log): read it from there,
        // as a consumer that starts at the end would skip copies made before this member joined.
        if (own !== from) positions.seek(topic, end.partition, String(from), asOf);
      }
    });
    return plan;
  }
}
