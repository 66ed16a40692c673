import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import amqplib from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../policy';
import { PermanentError, TransientError } from '../../runtime';
import { consumeWithFailover, type FailoverConsumer, type FailoverEvent } from '../../runtime/rabbitmq';
import {
  behaviour,
  type FaultWindow,
  judgeWaits,
  Ledger,
  LIVENESS_MS,
  mostDeliveriesAllowed,
} from './ledger';
import { deadLetterReason, FailoverPublisher, publishIdOf, readQueue } from './rabbitmq-amqp';
import {
  amqpUrl,
  cluster,
  clusterPlan,
  faultRandom,
  managementUrl,
  nodeName,
  type QuorumQueueInfo,
  quorumQueue,
  RABBIT_NODES,
  RABBIT_URLS,
  type RabbitNode,
  rabbitTopology,
  restoreCluster,
  sleep,
  stats,
  uniqueName,
  waitFor,
} from './support';

/**
 * A retry chain on a three-node RabbitMQ cluster (quorum queues with three replicas) while nodes
 * die. Three times, at a random moment, the node leading the main queue or a wait queue is
 * SIGKILLed while messages wait in the wait queues and copies are in flight, and started again.
 * Three consumers (one connected to each node) consume through consumeWithFailover, a producer
 * publishes throughout. Asserted: every message ends where its kind says (success, or the
 * dead-letter queue as exhausted or permanent), no wait is shorter than its delay, no message is delivered at one attempt more
 * often than the kills can explain, and every wait ends within the liveness bound (5 min).
 * Measured and reported per round, never asserted: how late the waits came back, inside and
 * outside the fault windows (a kill until the node is back in every queue), and the failover times.
 */

const DELAYS = ['2s', '4s'];
const DELAYS_MS = [2_000, 4_000];
const MAX_ATTEMPTS = 3;
const RATE_PER_SECOND = 15;
const WORK_MS = 15;
const ROUNDS = Number(process.env.FAULT_ROUNDS ?? 3);
/**
 * The report's lateness budget outside a fault window (`beyondBudget`), not an assertion: TTL
 * expiry, redelivery, a busy event loop.
 */
const LOAD_MARGIN_MS = 2_000;
/**
 * The report's budget for a wait in a fault window, beyond the failover measured in it. Measured on
 * 3.10.8: when the killed node led both a wait queue and the main queue, messages due in the next
 * seconds came back together 10–16 s after the new leaders were up (the at-least-once dead-letter
 * worker of the new leader resends after its confirm timeout, 5 s on this cluster; with the 180 s
 * default they waited minutes). Copies the broker refused meanwhile are held and tried again.
 */
const DEAD_LETTER_RESEND_ALLOWANCE_MS = 20_000;

const name = uniqueName('rabbit');
const plan: RetryPlan = clusterPlan(name, 'fault-run', DELAYS, 'rabbitmq');
const rabbit = plan.targets.rabbitmq;
if (!rabbit) throw new Error('no rabbitmq target');
const waitQueues = rabbit.queues.filter((queue) => queue.role === 'wait').map((queue) => queue.name);

interface Round {
  target: RabbitNode;
  role: 'main' | 'wait';
  leads: string[];
  waitingAtKill: number;
  handlersRunningAtKill: number;
  /** Consumers connected to the node when it died. */
  consumersCutOff: number;
  killAt: number;
  /** Kill → every queue the node led has a new leader that is online (management API, polled). */
  leaderFailoverMs: number;
  /** Kill → the consumer that was connected to the node consumes on another one. */
  consumerDownMs: number[];
  /** Kill → the node is back and every queue has its three members online again. */
  recoveredMs: number;
  /** Kill → start-node called, and → start-node returned. */
  restartMs: [number, number];
}

/** A node that is up, to ask about the others. */
async function liveNode(except?: RabbitNode): Promise<RabbitNode> {
  for (const node of RABBIT_NODES) {
    if (node === except) continue;
    const up = await fetch(`${managementUrl(node)}/api/overview`, {
      headers: { authorization: `Basic ${Buffer.from('guest:guest').toString('base64')}` },
      signal: AbortSignal.timeout(3_000),
    }).then(
      (response) => response.ok,
      () => false,
    );
    if (up) return node;
  }
  throw new Error('no RabbitMQ node answers');
}

describe('RabbitMQ cluster: leaders killed while messages wait and copies are in flight', () => {
  const { seed, random } = faultRandom();
  const ledger = new Ledger(MAX_ATTEMPTS, DELAYS_MS);
  const failovers: Array<FailoverEvent & { at: number }> = [];
  /** What the consumers reported through onError, by code. */
  const errors = new Map<string, number>();
  /** When the broker refused a copy. */
  const refusedAt: number[] = [];
  const consumers: FailoverConsumer[] = [];
  let dlqReader: FailoverConsumer | undefined;
  const publisher = new FailoverPublisher(RABBIT_URLS, plan, 2);

  beforeAll(() => rabbitTopology(plan, 'rabbit-1', 'declare'));

  afterAll(async () => {
    // A round that failed between a kill and its start-node leaves the node down.
    await restoreCluster('rabbitmq');
    await Promise.allSettled(consumers.map((consumer) => consumer.stop()));
    await dlqReader?.stop().catch(() => undefined);
    await publisher.close();
    // RETRY_TOPOLOGY_KEEP_TOPOLOGY=1 leaves the queues on the cluster to look at after a failure.
    if (process.env.RETRY_TOPOLOGY_KEEP_TOPOLOGY === '1') return;
    await rabbitTopology(plan, await liveNode(), 'delete');
  });

  it('declares every queue with three members, one per node', async () => {
    for (const queue of rabbit.queues) {
      const info = await waitFor(
        async () => {
          const found = await quorumQueue('rabbit-1', queue.name);
          return (found.members?.length ?? 0) === 3 ? found : undefined;
        },
        30_000,
        `three members of ${queue.name}`,
      );
      expect(info.arguments?.['x-quorum-initial-group-size']).toBe(3);
      expect([...(info.members ?? [])].sort()).toEqual(RABBIT_NODES.map((node) => `${node}@localhost`));
    }
  });

  it('loses nothing through three kills, and every wait stays within its delay plus the failover', async () => {
    // Three consumers, the first connected to each node, so every kill cuts one of them off.
    for (let index = 0; index < RABBIT_NODES.length; index++) {
      consumers.push(
        await consumeWithFailover(
          RABBIT_URLS,
          plan,
          async (message, { attempt }) => {
            const id = message.properties.messageId as string;
            ledger.delivered(id, attempt);
            ledger.running++;
            try {
              await sleep(WORK_MS);
              switch (behaviour(ledger.kind(id), attempt)) {
                case 'succeed':
                  ledger.succeeded(id);
                  return;
                case 'transient':
                  ledger.failed(id, attempt);
                  throw new TransientError('503 from the dependency');
                case 'permanent':
                  throw new PermanentError('invalid currency');
              }
            } finally {
              ledger.running--;
            }
          },
          {
            prefetch: 10,
            random: () => (index + 0.5) / RABBIT_NODES.length,
            onFailover: (event) => failovers.push({ ...event, at: Date.now() }),
            onError: (error) => {
              const code = `${(error as { code?: string }).code}: ${(error as Error).message}`.slice(0, 120);
              errors.set(code, (errors.get(code) ?? 0) + 1);
              if ((error as { code?: string }).code === 'publish-refused') refusedAt.push(Date.now());
            },
          },
        ),
      );
    }
    dlqReader = await readQueue(RABBIT_URLS, rabbit.deadLetterQueue, (message) => {
      ledger.deadLettered(
        message.properties.messageId as string,
        deadLetterReason(message),
        publishIdOf(message),
      );
    });

    const runStarted = Date.now();
    let publishing = true;
    let sent = 0;
    const producing = (async () => {
      const started = Date.now();
      while (publishing) {
        const n = sent++;
        const id = `m-${n}`;
        ledger.publish(id, n);
        await publisher.publish(id, { id });
        const due = started + (sent * 1_000) / RATE_PER_SECOND;
        if (due > Date.now()) await sleep(due - Date.now());
      }
    })();

    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await sleep(1_500 + random() * 2_500);
      await waitFor(
        () => (ledger.waiting() > 0 ? true : undefined),
        120_000,
        'a message waiting in a wait queue',
      );
      const asked = await liveNode();
      const main = await quorumQueue(asked, rabbit.mainQueue);
      const waitQueue = waitQueues[Math.floor(random() * waitQueues.length)] as string;
      const wait = await quorumQueue(asked, waitQueue);
      const role: Round['role'] =
        round === 0 ? 'main' : round === 1 ? 'wait' : random() < 0.5 ? 'main' : 'wait';
      const target = nodeName(role === 'main' ? main.leader : wait.leader);
      const infos = new Map<string, QuorumQueueInfo>();
      for (const queue of rabbit.queues) infos.set(queue.name, await quorumQueue(asked, queue.name));
      const leads = [...infos].filter(([, info]) => nodeName(info.leader) === target).map(([queue]) => queue);

      const port = new URL(amqpUrl(target)).port;
      const cutOff = consumers.filter(
        (consumer) => new URL(consumer.url || 'amqp://x:1').port === port,
      ).length;
      const waitingAtKill = ledger.waiting();
      const handlersRunningAtKill = ledger.running;
      const killAt = Date.now();
      await cluster('kill-node', target);

      const survivor = await liveNode(target);
      await waitFor(
        async () => {
          for (const queue of leads) {
            const info = await quorumQueue(survivor, queue);
            const leader = nodeName(info.leader);
            if (leader === target || !(info.online ?? []).includes(`${leader}@localhost`)) return undefined;
          }
          return true;
        },
        60_000,
        `new leaders for ${leads.join(', ')}`,
      );
      const leaderFailoverMs = Date.now() - killAt;
      // Let the cut-off consumers move before the node returns (they would otherwise just reconnect).
      await waitFor(
        () => (failovers.filter((event) => event.at >= killAt).length >= cutOff ? true : undefined),
        30_000,
        'the cut-off consumers consuming on another node',
      );
      const restartAt = Date.now();
      await cluster('start-node', target);
      const backAt = Date.now();
      await waitFor(
        async () => {
          for (const queue of rabbit.queues) {
            const info = await quorumQueue(target, queue.name);
            if ((info.online ?? []).length !== 3) return undefined;
          }
          return true;
        },
        120_000,
        `${target} back in every queue`,
      );
      rounds.push({
        target,
        role,
        leads,
        waitingAtKill,
        handlersRunningAtKill,
        consumersCutOff: cutOff,
        killAt,
        leaderFailoverMs,
        consumerDownMs: failovers.filter((event) => event.at >= killAt).map((event) => event.downMs),
        recoveredMs: Date.now() - killAt,
        restartMs: [restartAt - killAt, backAt - killAt],
      });
    }

    // At least 30 s of traffic however fast the nodes came back: the run asserts that much (three
    // quick rounds on an idle machine once ended after 28.8 s, 432 messages).
    await sleep(Math.max(0, runStarted + 31_000 - Date.now()));
    publishing = false;
    await producing;
    const longestChainMs = DELAYS_MS.reduce((sum, each) => sum + each, 0);
    await waitFor(
      () => (ledger.unfinished().length === 0 ? true : undefined),
      longestChainMs + LIVENESS_MS,
      'every message to end in success or the dead-letter queue',
      250,
    ).catch(() => undefined);

    const depths: Record<string, number> = {};
    {
      const connection = await amqplib.connect(amqpUrl(await liveNode()));
      const channel = await connection.createChannel();
      for (const queue of rabbit.queues)
        depths[queue.name] = (await channel.checkQueue(queue.name)).messageCount;
      await connection.close();
      if (ledger.unfinished().length > 0) {
        const asked = await liveNode();
        for (const queue of rabbit.queues) {
          const info = (await quorumQueue(asked, queue.name)) as Record<string, unknown>;
          console.log(
            `queue ${queue.name}`,
            JSON.stringify(
              Object.fromEntries(
                Object.entries(info).filter(([key]) => /^messages|dlx|consumers$|leader|online/.test(key)),
              ),
            ),
          );
        }
      }
    }
    const outcomes = ledger.outcomes();
    const waits = ledger.waits();
    const windows: FaultWindow[] = rounds.map((round) => ({
      start: round.killAt,
      end: round.killAt + round.recoveredMs,
      budgetMs: Math.max(round.leaderFailoverMs, ...round.consumerDownMs) + DEAD_LETTER_RESEND_ALLOWANCE_MS,
    }));
    const judged = judgeWaits(waits, windows, LOAD_MARGIN_MS);
    const { stuck, beyondBudget, inWindows, outside } = judged;
    // A copy the broker lets out early is held by the runtime until its retry-not-before (once 22
    // copies of a 4 s level came out together 1.3–3.2 s early, right after the node leading the
    // wait queues was killed), so no handler may run before its delay, fault window or not.
    const { early } = judged;
    // Every dead letter carries its reason: one the broker refused during an election is held and
    // published again, never left to the broker's own dead-lettering (x-death 'rejected').
    const wrong = outcomes.wrong;
    const report = {
      target: 'rabbitmq-3.10.8-cluster',
      seed,
      rounds: rounds.map(({ killAt, ...round }) => ({
        /** Seconds from the start of publishing to the kill. */
        killAtS: (killAt - runStarted) / 1_000,
        ...round,
        /** The latest a wait that was running when the node died came back. */
        refusedCopiesMs: ((list) => (list.length ? [list.length, list[0], list[list.length - 1]] : []))(
          refusedAt.filter((at) => at >= killAt && at <= killAt + round.recoveredMs).map((at) => at - killAt),
        ),
        /** The retry path's failover: how late the waits running in the fault window came back. */
        retryPathLatenessMs: Math.max(
          0,
          ...waits
            .filter((each) => each.from <= killAt + round.recoveredMs && each.to >= killAt)
            .map((each) => each.latenessMs),
        ),
      })),
      outcomes: {
        ...outcomes,
        lost: outcomes.lost.length,
        wrong: wrong.slice(0, 10),
      },
      republishedByProducer: publisher.republished,
      consumerErrors: Object.fromEntries(errors),
      queueDepthsAtEnd: depths,
      unfinished: ledger
        .unfinished()
        .slice(0, 5)
        .map((id) => ledger.trace(id)),
      consumingFrom: consumers.map((consumer) => consumer.url),
      waits: {
        all: stats(waits.map((each) => each.latenessMs)),
        inAFaultWindow: stats(inWindows.map((each) => each.latenessMs)),
        outsideFaultWindows: stats(outside.map((each) => each.latenessMs)),
        early: early.slice(0, 5).map((each) => ({ ...each, trace: ledger.trace(each.id) })),
        beyondBudget: {
          count: beyondBudget.length,
          first: beyondBudget
            .slice(0, 10)
            .map((each) => ({ ...each, fromS: (each.from - runStarted) / 1_000 })),
        },
      },
    };
    console.log(`cluster fault report ${JSON.stringify(report)}`);
    const dir = process.env.RETRY_TOPOLOGY_STATE ?? '/tmp/retry-topology';
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cluster-report-rabbitmq.json'), `${JSON.stringify(report, null, 2)}\n`);

    for (const round of rounds) {
      expect(round.waitingAtKill, 'messages were waiting when the node died').toBeGreaterThan(0);
      expect(round.leads.length, `${round.target} led a queue when it died`).toBeGreaterThan(0);
    }
    expect(outcomes.lost, `lost messages (seed ${seed})`).toEqual([]);
    expect(wrong, `messages that ended in the wrong place (seed ${seed})`).toEqual([]);
    expect(outcomes.both).toEqual([]);
    expect(outcomes.published).toBeGreaterThan(RATE_PER_SECOND * 30);
    expect(early, 'a retry before its delay').toEqual([]);
    expect(stuck, `waits longer than their delay + ${LIVENESS_MS / 1_000} s`).toEqual([]);
    expect(
      outcomes.duplicates.mostDeliveriesOfOneAttempt,
      'deliveries of one message at one attempt',
    ).toBeLessThanOrEqual(mostDeliveriesAllowed(rounds.length));
    expect(inWindows.length, 'some waits ran through a fault').toBeGreaterThan(0);
  });
});
