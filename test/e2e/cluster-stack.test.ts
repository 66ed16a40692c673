import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import amqplib from 'amqplib';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../policy';
import { publishConfirmed } from '../../runtime/rabbitmq/confirm';
import {
  amqpUrl,
  cluster,
  clusterRunning,
  KAFKA_BROKERS,
  quorumQueue,
  RABBIT_NODES,
  sleep,
  waitFor,
} from '../cluster/support';
import { completedSteps, type Engine, findEngine, inCi, parseEvents, type RunResult } from './engine';
import { plannedTopics, readTopics } from './kafka-readback';
import { planOf, requireKafka, requireRabbit } from './plans';
import { plannedRabbit, readRabbit } from './rabbitmq-readback';
import { sweep } from './sweep';
import { createWorkspace, finishWorkspace, type Workspace } from './workspace';

/**
 * A production-like stack (stacks/Pulumi.ci-cluster.yaml: quorum queues with three members, Kafka
 * topics with replication factor 3 and min.insync.replicas 2) provisioned by the real Pulumi engine
 * on the clusters of `scripts/brokers.sh cluster`, with a node of each cluster SIGKILLed in the
 * middle of `pulumi up`, twice: during the create and during an update while messages wait in
 * the main queue and the source topic. Each time the nodes come back, `pulumi up` runs again and
 * must converge: every resource as planned, replicas placed on three nodes, nothing lost. The
 * vitest project e2e-cluster points the helpers at rabbit-1 and kafka-1.
 */

const ROOT = resolve(__dirname, '..', '..');
const STACK = 'ci-cluster';
const found = findEngine();
const engine: Engine | undefined = 'missing' in found ? undefined : found;
const skip = engine === undefined && !inCi();
const MESSAGES = 50;

const kafka = new Kafka({
  clientId: 'retry-topology-e2e-cluster',
  brokers: KAFKA_BROKERS,
  logLevel: logLevel.NOTHING,
});

describe.skipIf(skip)(
  'a stack on the clusters, through the real Pulumi engine, with nodes killed during up',
  () => {
    let workspace: Workspace;
    let plan: RetryPlan;
    let destroyed = false;
    const report: Record<string, unknown> = {};
    const changes = (result: RunResult) =>
      completedSteps(parseEvents(result.stdout)).filter((step) => step.op !== 'same');
    const up = () => workspace.pulumi(['up', '--yes', '--json', '--skip-preview']);

    /**
     * `pulumi up` with a RabbitMQ node and a Kafka broker SIGKILLed at a random moment of it; they
     * stay down until the up has ended, then come back. Reports whether the up still succeeded
     * (a cluster with one node down takes writes) and when the kill came.
     */
    async function upWithKills(rabbitNode: string, kafkaNode: string) {
      const started = Date.now();
      let endedAt = 0;
      const running = up().then(
        () => 'succeeded' as const,
        (error: unknown) => `failed: ${String(error).slice(0, 300)}`,
      );
      void running.then(() => {
        endedAt = Date.now();
      });
      await sleep(1_000 + Math.random() * 3_000);
      const killedAt = Date.now();
      await Promise.all([cluster('kill-node', rabbitNode), cluster('kill-node', kafkaNode)]);
      const outcome = await running;
      await Promise.all([cluster('start-node', rabbitNode), cluster('start-node', kafkaNode)]);
      return {
        killed: [rabbitNode, kafkaNode],
        outcome,
        killedAfterMs: killedAt - started,
        upTookMs: (endedAt || Date.now()) - started,
        backAfterMs: Date.now() - started,
      };
    }

    /** Every queue has its three members, one per node, all online; every partition three in-sync replicas. */
    async function replicasAsPlanned(): Promise<void> {
      const rabbit = requireRabbit(plan);
      for (const queue of rabbit.queues) {
        const info = await waitFor(
          async () => {
            const got = await quorumQueue('rabbit-1', queue.name);
            return (got.online ?? []).length === 3 ? got : undefined;
          },
          60_000,
          `three online members of ${queue.name}`,
        );
        const nodes = RABBIT_NODES.map((node) => `${node}@localhost`);
        expect([...(info.members ?? [])].sort(), `${queue.name} members`).toEqual(nodes);
        expect(info.arguments?.['x-quorum-initial-group-size']).toBe(queue.replication.replicas);
      }
      const target = requireKafka(plan);
      const admin = kafka.admin();
      await admin.connect();
      try {
        for (const topic of target.topics) {
          const partitions = await waitFor(
            async () => {
              const { topics } = await admin.fetchTopicMetadata({ topics: [topic.name] });
              const all = topics[0]?.partitions ?? [];
              return all.length > 0 && all.every((each) => each.isr.length === 3) ? all : undefined;
            },
            120_000,
            `three in-sync replicas for every partition of ${topic.name}`,
          );
          expect(partitions).toHaveLength(topic.partitions);
          for (const partition of partitions) {
            expect(new Set(partition.replicas).size, `${topic.name}[${partition.partitionId}] replicas`).toBe(
              topic.replicationFactor,
            );
          }
        }
      } finally {
        await admin.disconnect();
      }
    }

    beforeAll(async () => {
      if (!engine) throw new Error(`CI: no Pulumi engine (${'missing' in found ? found.missing : ''})`);
      if (!(await clusterRunning()))
        throw new Error('the clusters are not running: start them with scripts/brokers.sh cluster start');
      workspace = await createWorkspace(engine, ROOT, { stack: STACK });
      plan = await planOf(workspace.policyFiles[0] ?? '');
    }, 300_000);

    afterAll(async () => {
      if (workspace && !destroyed) {
        await workspace.pulumi(['destroy', '--yes', '--skip-preview']).then(
          () => {
            destroyed = true;
          },
          async (error: unknown) => {
            console.error(`cleanup: pulumi destroy failed: ${String(error)}`);
            destroyed = (await sweep(workspace.prefix).catch(() => undefined)) !== undefined;
          },
        );
      }
      if (workspace) finishWorkspace(workspace, destroyed);
      console.log(`cluster e2e ${JSON.stringify(report)}`);
    }, 300_000);

    it('a node of each cluster killed during the create: up again converges, replicas placed as planned', async () => {
      report.firstUp = await upWithKills('rabbit-1', 'kafka-3');
      const again = await up();
      expect(changes(again).filter((step) => step.op !== 'create')).toEqual([]);
      const settled = await up();
      expect(changes(settled), 'a third up has nothing left to do').toEqual([]);
      const rabbit = requireRabbit(plan);
      expect(await readRabbit(rabbit)).toEqual(plannedRabbit(rabbit));
      expect(await readTopics(requireKafka(plan))).toEqual(plannedTopics(requireKafka(plan)));
      await replicasAsPlanned();
    });

    it('a node of each cluster killed during an update: up again converges, and no waiting message is lost', async () => {
      const rabbit = requireRabbit(plan);
      const target = requireKafka(plan);
      const ids = Array.from(
        { length: MESSAGES },
        (_, index) => `w-${index}-${randomBytes(2).toString('hex')}`,
      );
      // Messages waiting in the main queue (no consumer) and records in the source topic.
      const connection = await amqplib.connect(amqpUrl('rabbit-2'));
      const channel = await connection.createConfirmChannel();
      const source = rabbit.exchanges.find((exchange) => exchange.role === 'source')?.name ?? '';
      const routingKey = rabbit.bindings.find((binding) => binding.source === source)?.routingKey ?? '';
      for (const id of ids)
        await publishConfirmed(channel, source, routingKey, Buffer.from(id), {
          persistent: true,
          messageId: id,
        });
      await connection.close();
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      await producer.send({
        topic: target.sourceTopic,
        acks: -1,
        messages: ids.map((id) => ({ key: id, value: id })),
      });
      await producer.disconnect();

      // An update in place on both brokers: longer waits (RabbitMQ policies), shorter retention (Kafka config).
      workspace.editPolicy(0, (doc) => {
        doc.setIn(['spec', 'backoff', 'delays'], ['3s', '6s']);
        doc.setIn(['spec', 'targets', 'kafka', 'retryRetention'], '5d');
      });
      plan = await planOf(workspace.policyFiles[0] ?? '');
      const updated = requireKafka(plan);
      report.updateUp = await upWithKills('rabbit-2', 'kafka-1');
      const again = await up();
      expect(
        changes(again).filter((step) => step.op !== 'update'),
        'the second up only finishes updates',
      ).toEqual([]);
      expect(changes(await up()), 'a third up has nothing left to do').toEqual([]);
      expect(await readRabbit(requireRabbit(plan))).toEqual(plannedRabbit(requireRabbit(plan)));
      expect(await readTopics(updated)).toEqual(plannedTopics(updated));
      await replicasAsPlanned();

      // Every message is still in the main queue, every record still in the source topic.
      const reader = await amqplib.connect(amqpUrl('rabbit-3'));
      const readChannel = await reader.createChannel();
      const inQueue: string[] = [];
      for (;;) {
        const message = await readChannel.get(rabbit.mainQueue, { noAck: true });
        if (!message) break;
        inQueue.push(message.properties.messageId as string);
      }
      await reader.close();
      expect(inQueue.sort()).toEqual([...ids].sort());

      const consumer = kafka.consumer({ groupId: `e2e-cluster-reader-${randomBytes(3).toString('hex')}` });
      const inTopic: string[] = [];
      await consumer.connect();
      await consumer.subscribe({ topics: [target.sourceTopic], fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void inTopic.push(String(message.key)) });
      await waitFor(() => (inTopic.length >= ids.length ? true : undefined), 60_000, 'the source records');
      await consumer.disconnect();
      expect(inTopic.sort()).toEqual([...ids].sort());
    });

    it('pulumi destroy removes the stack', async () => {
      await workspace.pulumi(['destroy', '--yes', '--skip-preview']);
      destroyed = true;
      await waitFor(
        async () =>
          (await quorumQueue('rabbit-1', requireRabbit(plan).mainQueue).catch(() => undefined))
            ? undefined
            : true,
        30_000,
        'the main queue gone',
      );
    });
  },
);
