import { resolve } from 'node:path';
import type { EngineEvent as AutomationEvent, Stack } from '@pulumi/pulumi/automation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../policy';
import { HEADERS } from '../../runtime';
import { consumeWithRetries, type RabbitConsumer } from '../../runtime/rabbitmq';
import { type Broker, body, connect, management, publish, waitFor } from '../integration/rabbitmq/support';
import { automationStack } from './automation';
import { type BrokerState, brokerState, queueDepth } from './broker-state';
import { Deliveries } from './deliveries';
import { completedSteps, type Engine, type EngineEvent, findEngine, inCi, type RunResult } from './engine';
import { plannedTopics, readTopics } from './kafka-readback';
import { type KafkaRun, runKafka } from './kafka-run';
import { planOf, provisionedPlan, requireKafka, requireRabbit } from './plans';
import { plannedRabbit, readRabbit } from './rabbitmq-readback';
import { sweep } from './sweep';
import { createWorkspace, finishWorkspace, type Workspace } from './workspace';

/**
 * The components' defaults (protection on, retry levels kept) on the real engine, through every
 * way Pulumi is driven: the Automation API (LocalWorkspace: `up` and `destroy` always skip the
 * preview) and the CLI with and without --skip-preview. The stack is the ci stack's brokers and
 * policy without its two opt-outs. While the RabbitMQ and Kafka runtimes run on what Pulumi made,
 * the test changes a delay, lowers maxAttempts with a message waiting in the level it removes,
 * renames the main queue and destroys, and after each step reads both brokers: what changed is
 * exactly what should have, routing still works, and no message is lost.
 */

const ROOT = resolve(__dirname, '..', '..');
const STACK = 'protected';
const found = findEngine();
const engine: Engine | undefined = 'missing' in found ? undefined : found;
const skip = engine === undefined && !inCi();

/**
 * Level 3's wait while message X sits in it: longer than the `pulumi up` that removes the level,
 * which takes about 10 s here and once took 56 s at a load average of 27, so 2 minutes.
 */
const LEVEL_3_MS = 120_000;
const RABBIT = ['spec', 'targets', 'rabbitmq'];

describe.skipIf(skip)(
  'the components’ defaults on the real engine: no Pulumi path breaks the message path',
  () => {
    let workspace: Workspace;
    let stack: Stack;
    let plan: RetryPlan;
    let broker: Broker;
    let rabbit: RabbitConsumer | undefined;
    let kafkaRun: KafkaRun | undefined;
    let seen: Deliveries;
    let destroyed = false;
    const timings: Record<string, number> = {};
    /** The broker state a refused operation must leave exactly as it was. */
    let before: BrokerState;
    /** And the stack's: what it manages (a retained resource dropped from the state is lost track of). */
    let managedBefore: string[];
    let xPublishedAt = 0;
    let fewerAttemptsDoneAt = 0;

    const timed = async <T>(label: string, run: () => Promise<T>): Promise<T> => {
      const started = Date.now();
      try {
        return await run();
      } finally {
        timings[label] = Date.now() - started;
      }
    };
    /** Automation API `up`, with the engine events it streamed. */
    const automationUp = (label: string) =>
      timed(label, async () => {
        const events: AutomationEvent[] = [];
        await stack.up({ onEvent: (event) => void events.push(event) });
        return completedSteps(events as unknown as EngineEvent[]).filter((step) => step.op !== 'same');
      });
    const cli = (label: string, args: string[]) =>
      timed(label, () => workspace.pulumi([...args, '--stack', STACK]));
    const refused = async (run: () => Promise<unknown>): Promise<string> => {
      try {
        await run();
      } catch (error) {
        const result = (error as { result?: RunResult }).result;
        return `${String((error as Error).message)}\n${result?.stdout ?? ''}\n${result?.stderr ?? ''}`;
      }
      throw new Error('the operation went through; it had to be refused');
    };
    /** Every resource the stack manages, protected ones marked. */
    const managed = async () =>
      (
        JSON.parse((await workspace.pulumi(['stack', 'export', '--stack', STACK])).stdout).deployment
          .resources as Array<{ urn: string; protect?: boolean }>
      )
        .map((each) => `${each.urn}${each.protect ? ' (protected)' : ''}`)
        .sort();
    const rename = () =>
      workspace.editPolicy(0, (doc) => {
        doc.setIn([...RABBIT, 'queue'], `${requireRabbit(plan).mainQueue}.v2`);
        fewerAttempts(doc);
      });
    const fewerAttempts = (doc: Parameters<Parameters<Workspace['editPolicy']>[1]>[0]) => {
      doc.setIn(['spec', 'maxAttempts'], 3);
      doc.setIn(['spec', 'backoff'], { type: 'list', delays: ['1s', '2s'] });
    };

    beforeAll(async () => {
      if (!engine) throw new Error(`CI: no Pulumi engine (${'missing' in found ? found.missing : ''})`);
      workspace = await timed('workspace', () =>
        createWorkspace(engine, ROOT, {
          stack: STACK,
          config: 'ci',
          // The ci stack's brokers and policy with the components' defaults: no opt-outs.
          editConfig: (config) => {
            config.deleteIn(['config', 'retry-topology:protectMessages']);
            config.deleteIn(['config', 'retry-topology:retainRetryLevels']);
          },
        }),
      );
      stack = await automationStack(engine, workspace);
      plan = await planOf(workspace.policyFiles[0] ?? '');
      broker = await connect();
    }, 300_000);

    afterAll(async () => {
      await rabbit?.stop().catch(() => undefined);
      await kafkaRun?.stop().catch(() => undefined);
      await broker?.close();
      if (workspace && !destroyed) {
        // Protected on purpose: unprotect, destroy, then sweep what was kept (and anything else).
        await workspace
          .pulumi(['state', 'unprotect', '--all', '--yes', '--stack', STACK])
          .catch(() => undefined);
        await workspace.pulumi(['destroy', '--yes', '--skip-preview', '--stack', STACK]).catch((error) => {
          console.error(`cleanup: pulumi destroy failed: ${String(error)}`);
        });
        await sweep(workspace.prefix).then(
          (removed) => {
            console.error(`cleanup: swept ${removed.join(', ') || 'nothing'}`);
            destroyed = true;
          },
          (error: unknown) => console.error(`cleanup: sweep failed: ${String(error)}`),
        );
      }
      if (workspace) finishWorkspace(workspace, destroyed);
      console.log(`pulumi e2e (protected stack) timings (ms): ${JSON.stringify(timings, null, 2)}`);
    }, 300_000);

    it('Automation API up creates the plan, protected: the target components and the delete guards', async () => {
      const steps = await automationUp('automation up (create)');
      expect(steps.filter((step) => step.op !== 'create')).toEqual([]);
      const protectedOnes = JSON.parse(
        (await workspace.pulumi(['stack', 'export', '--stack', STACK])).stdout,
      ).deployment.resources.filter((each: { protect?: boolean }) => each.protect);
      const types = protectedOnes.map((each: { type: string }) => each.type);
      expect(types.filter((type: string) => type === 'retry-topology:index:DeleteGuard')).toHaveLength(2);
      expect(types).toContain('retry-topology:index:RabbitMqRetryTopology');
      expect(types).toContain('retry-topology:index:KafkaRetryTopology');
      expect(await readRabbit(requireRabbit(plan))).toEqual(plannedRabbit(requireRabbit(plan)));
      expect(await readTopics(requireKafka(plan))).toEqual(plannedTopics(requireKafka(plan)));
    });

    it('the RabbitMQ and Kafka runtimes run on what Pulumi made', async () => {
      const provisioned = await provisionedPlan(workspace, plan.policy);
      seen = new Deliveries((id, attempt) => {
        if (id.startsWith('bad')) return 'InvalidCurrencyError';
        return id.startsWith('flaky') && attempt === 1 ? '503' : 'ok';
      });
      rabbit = await consumeWithRetries(broker.channel, provisioned, seen.handler);
      kafkaRun = await timed('kafka runtime joined', () =>
        runKafka(provisioned, (id, attempt) => {
          if (id.startsWith('bad')) return 'permanent';
          return id.startsWith('flaky') && attempt === 1 ? '503' : 'ok';
        }),
      );
      for (const id of ['flaky-1', 'bad-1']) await publish(broker, provisioned, { id }, { messageId: id });
      for (const id of ['flaky-1', 'bad-1']) await kafkaRun.send(id);
      const rabbitRetry = await seen.waitFor('flaky-1', 2, 30_000);
      expect(rabbitRetry.at).toBeGreaterThanOrEqual(1_000);
      const kafkaRetry = await kafkaRun.waitFor('flaky-1', 2, 60_000);
      expect(kafkaRetry.topic).toBe(requireKafka(provisioned).levels[0]?.destination);
      // bad-1 stays in the DLQ and the DLT for the whole test: the messages that must never be lost.
      await waitFor(
        async () => (await queueDepth(requireRabbit(plan).deadLetterQueue)) === 1,
        30_000,
        'bad-1 in the DLQ',
      );
      const [dead] = await kafkaRun.deadLetters(1, 30_000);
      expect(JSON.parse(String(dead?.value))).toEqual({ id: 'bad-1' });
    });

    it('a delay change (Automation API) updates one wait-queue policy in place', async () => {
      workspace.editPolicy(0, (doc) =>
        doc.setIn(['spec', 'backoff'], { type: 'list', delays: ['1s', '2s', '2m'] }),
      );
      const steps = await automationUp('automation up (delay change)');
      expect(steps.map((step) => `${step.op} ${step.name}`)).toEqual([`update ${plan.policy}-wait-3-policy`]);
      const wait3 = requireRabbit(plan).queues.find((queue) => queue.level === 3)?.name ?? '';
      const policies = (await brokerState(workspace.prefix)).policies as Record<
        string,
        Record<string, unknown>
      >;
      expect(policies[`retry-topology.${wait3}`]?.['message-ttl']).toBe(LEVEL_3_MS);
      // In effect on the queue itself (the management stats catch up within ~5 s on 3.10.8).
      await waitFor(
        async () => {
          const queue = await management.getQueue(requireRabbit(plan).vhost, wait3);
          const effective = queue?.effective_policy_definition as Record<string, unknown> | undefined;
          return effective?.['message-ttl'] === LEVEL_3_MS;
        },
        30_000,
        'the 2 min TTL in effect on wait queue 3',
      );
      expect(await queueDepth(requireRabbit(plan).deadLetterQueue)).toBe(1);
    });

    it('fewer attempts (Automation API) keep the removed level on the broker, with the message in it', async () => {
      const target = requireRabbit(plan);
      const wait3 = target.queues.find((queue) => queue.level === 3)?.name ?? '';
      // X is what the runtime makes of a third failure: a copy in wait queue 3, through the retry
      // exchange, with the headers such a copy carries. Its retry-not-before is what the runtime
      // guarantees (it holds a copy the broker lets out early: RabbitMQ's timers may run up to 1 %
      // fast), so "not early" below tests the runtime, not the broker's clock.
      // Timed before the publish: the message is in the queue before its confirm comes back.
      const placedAt = Date.now();
      xPublishedAt = placedAt - seen.start;
      const copyHeaders = {
        [HEADERS.attempt]: 4,
        [HEADERS.firstFailureAt]: placedAt,
        [HEADERS.notBefore]: placedAt + LEVEL_3_MS,
      };
      await new Promise<void>((done, fail) =>
        broker.channel.publish(
          target.retryExchange,
          wait3,
          Buffer.from(JSON.stringify({ id: 'X' })),
          { persistent: true, messageId: 'X', headers: copyHeaders },
          (error) => (error ? fail(error) : done()),
        ),
      );
      before = await brokerState(workspace.prefix);
      workspace.editPolicy(0, fewerAttempts);
      const steps = await automationUp('automation up (fewer attempts)');
      fewerAttemptsDoneAt = Date.now() - seen.start;
      // Four deletes from the stack, each a retain: nothing on the brokers changes.
      expect(steps.map((step) => `${step.op} ${step.name}`).sort()).toEqual(
        [
          `delete ${plan.policy}-retry-exchange-to-wait-3`,
          `delete ${plan.policy}-retry-topic-3`,
          `delete ${plan.policy}-wait-3`,
          `delete ${plan.policy}-wait-3-policy`,
        ].sort(),
      );
      expect(await brokerState(workspace.prefix)).toEqual(before);
      expect(seen.of('X')).toEqual([]);
    });

    const renameRuns: Array<[string, () => Promise<unknown>]> = [
      ['Automation API up', () => stack.up()],
      [
        'pulumi up --yes --skip-preview',
        () => cli('cli up --skip-preview (rename)', ['up', '--yes', '--skip-preview']),
      ],
      ['pulumi up --yes (with its preview)', () => cli('cli up (rename)', ['up', '--yes'])],
    ];
    it.each(renameRuns)(
      'a main-queue rename through %s is refused before anything changes',
      async (how, run) => {
        before = await brokerState(workspace.prefix);
        managedBefore = await managed();
        rename();
        const error = await timed(`rename: ${how}`, () => refused(run));
        workspace.editPolicy(0, fewerAttempts);
        expect(await brokerState(workspace.prefix)).toEqual(before);
        expect(await managed()).toEqual(managedBefore);
        // Refused at the target component, the first thing the program registers for RabbitMQ.
        expect(error).toMatch(/unable to replace resource "urn:pulumi:[^"]*RabbitMqRetryTopology::/);
      },
    );

    const destroyRuns: Array<[string, () => Promise<unknown>]> = [
      ['Automation API destroy', () => stack.destroy()],
      [
        'pulumi destroy --yes --skip-preview',
        () => cli('cli destroy --skip-preview', ['destroy', '--yes', '--skip-preview']),
      ],
      [
        'pulumi destroy --yes --skip-preview --continue-on-error',
        () =>
          cli('cli destroy --continue-on-error', [
            'destroy',
            '--yes',
            '--skip-preview',
            '--continue-on-error',
          ]),
      ],
      ['pulumi destroy --yes (with its preview)', () => cli('cli destroy', ['destroy', '--yes'])],
    ];
    it.each(destroyRuns)('%s is refused before anything is deleted', async (how, run) => {
      before = await brokerState(workspace.prefix);
      managedBefore = await managed();
      const error = await timed(`destroy: ${how}`, () => refused(run));
      expect(await brokerState(workspace.prefix)).toEqual(before);
      expect(await managed()).toEqual(managedBefore);
      // Refused at a delete guard, the first thing the engine deletes.
      expect(error).toMatch(/DeleteGuard::[^"]*" cannot be deleted/);
    });

    it('afterwards routing works on both brokers and no message was lost, X included', async () => {
      const target = requireRabbit(plan);
      // X came back from the kept wait queue 3, after the update that removed that level, and not early.
      const x = await seen.waitFor('X', 4, LEVEL_3_MS + 60_000);
      expect(x.at - xPublishedAt).toBeGreaterThanOrEqual(LEVEL_3_MS);
      expect(x.at).toBeGreaterThan(fewerAttemptsDoneAt);
      expect(x.outcome).toBe('ok');
      // A new message through the whole path: source exchange → main → retry exchange → wait 1 → main.
      await publish(broker, plan, { id: 'flaky-2' }, { messageId: 'flaky-2' });
      expect((await seen.waitFor('flaky-2', 2, 30_000)).outcome).toBe('ok');
      await kafkaRun?.send('flaky-2');
      expect((await kafkaRun?.waitFor('flaky-2', 2, 60_000))?.topic).toBe(
        requireKafka(plan).levels[0]?.destination,
      );
      // bad-1 is still in the dead letters.
      const dead = await broker.channel.get(target.deadLetterQueue, { noAck: false });
      expect(dead && body(dead)).toEqual({ id: 'bad-1' });
      if (dead) broker.channel.nack(dead, false, true);
      expect((await kafkaRun?.deadLetters(1, 30_000))?.map((each) => String(each.value))).toEqual([
        '{"id":"bad-1"}',
      ]);
    });

    it('nothing dangles: the brokers hold the plan of 3 attempts plus the kept level 3, nothing else', async () => {
      const now = await planOf(workspace.policyFiles[0] ?? '');
      const kept = requireRabbit(plan);
      const wait3 = kept.queues.find((queue) => queue.level === 3);
      const state = await brokerState(workspace.prefix);
      expect(state.queues).toEqual([...requireRabbit(now).queues.map((q) => q.name), wait3?.name].sort());
      expect(Object.keys(state.policies)).toEqual(
        [...requireRabbit(now).policies.map((p) => p.name), wait3?.policy].sort(),
      );
      expect(state.exchanges).toEqual(
        requireRabbit(now)
          .exchanges.map((e) => e.name)
          .sort(),
      );
      expect(state.bindings).toHaveLength(requireRabbit(now).bindings.length + 1);
      expect(state.topics).toEqual(
        [...requireKafka(now).topics.map((t) => t.name), requireKafka(plan).levels[2]?.destination].sort(),
      );
    });

    it('opting out takes one up; then destroy removes everything the stack still manages', async () => {
      await rabbit?.stop();
      rabbit = undefined;
      await kafkaRun?.stop();
      kafkaRun = undefined;
      for (const key of ['protectMessages', 'retainRetryLevels']) {
        await workspace.pulumi(['config', 'set', `retry-topology:${key}`, 'false', '--stack', STACK]);
      }
      await cli('cli up (protection off)', ['up', '--yes', '--skip-preview']);
      await cli('cli destroy (protection off)', ['destroy', '--yes', '--skip-preview']);
      // What is left is exactly the level that fewer attempts kept on purpose.
      const wait3 = requireRabbit(plan).queues.find((queue) => queue.level === 3);
      expect(await brokerState(workspace.prefix)).toEqual({
        queues: [wait3?.name],
        exchanges: [],
        policies: { [wait3?.policy ?? '']: expect.any(Object) },
        bindings: [],
        topics: [requireKafka(plan).levels[2]?.destination],
      });
      await sweep(workspace.prefix);
      destroyed = true;
    });
  },
);
