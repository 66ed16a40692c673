import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RetryPlan } from '../../policy';
import { HEADERS } from '../../runtime';
import { consumeWithRetries, type RabbitConsumer } from '../../runtime/rabbitmq';
import {
  type Broker,
  body,
  brokerVersion,
  connect,
  drain,
  INSTANCE,
  management,
  publish,
  waitFor,
} from '../integration/rabbitmq/support';
import { earliestEnd } from '../support/broker-clock';
import { completedSteps, type Engine, findEngine, inCi, parseEvents, type RunResult } from './engine';
import { planOf, requireRabbit } from './plans';
import { sweep } from './sweep';
import { createWorkspace, finishWorkspace, type Workspace } from './workspace';

/**
 * A stack in quorum-delayed-retry mode (stacks/Pulumi.ci-rabbitmq43.yaml) provisioned by the real
 * Pulumi engine on RabbitMQ 4.3.6 (scripts/rabbitmq4.sh), used by the runtime, given a delay change
 * in place while a message is held, and destroyed. The vitest project e2e-rabbitmq-4.3 points the
 * helpers at that broker.
 */

const ROOT = resolve(__dirname, '..', '..');
const STACK = 'ci-rabbitmq43';
const found = findEngine();
const engine: Engine | undefined = 'missing' in found ? undefined : found;
const skip = engine === undefined && !inCi();

describe.skipIf(skip)('a quorum-delayed-retry stack on RabbitMQ 4.3, through the real Pulumi engine', () => {
  let workspace: Workspace;
  let plan: RetryPlan;
  let client: Broker | undefined;
  let consumer: RabbitConsumer | undefined;
  let destroyed = false;
  const changes = (result: RunResult) =>
    completedSteps(parseEvents(result.stdout)).filter((s) => s.op !== 'same');
  const up = () => workspace.pulumi(['up', '--yes', '--json']);

  beforeAll(async () => {
    if (!engine) throw new Error(`CI: no Pulumi engine (${'missing' in found ? found.missing : ''})`);
    expect(INSTANCE).toBe('4.3');
    expect((await brokerVersion()).at([4, 3])).toBe(true);
    workspace = await createWorkspace(engine, ROOT, { stack: STACK });
    plan = await planOf(workspace.policyFiles[0] ?? '');
    client = await connect();
  }, 300_000);

  afterAll(async () => {
    await consumer?.stop().catch(() => undefined);
    await client?.close();
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
  }, 300_000);

  it('pulumi up creates the main queue with the delayed-retry policy, and no wait queue', async () => {
    const result = await up();
    const rabbit = requireRabbit(plan);
    expect(rabbit.queues.map((queue) => queue.role).sort()).toEqual(['dead-letter', 'main']);
    const created = changes(result).filter((step) => step.op === 'create');
    expect(created.length).toBeGreaterThan(0);
    const main = rabbit.policies.find((policy) =>
      policy.pattern.includes(rabbit.mainQueue.replaceAll('.', '\\.')),
    );
    if (!main) throw new Error('no main queue policy');
    expect(main.definition).toMatchObject({
      'delayed-retry-type': 'failed',
      'delayed-retry-min': 1_000,
      'delayed-retry-max': 2_000,
      'delivery-limit': 2,
    });
    for (const policy of rabbit.policies) {
      expect(await management.getPolicy(rabbit.vhost, policy.name)).toMatchObject({
        definition: policy.definition,
      });
    }
  });

  it('the runtime retries on it after the broker’s wait, and dead-letters after the last attempt', async () => {
    const rabbit = requireRabbit(plan);
    if (!client) throw new Error('no connection');
    const seen: Array<{ id: string; attempt: number; at: number }> = [];
    consumer = await consumeWithRetries(client.channel, plan, async (message, context) => {
      seen.push({ id: body(message).id, attempt: context.attempt, at: Date.now() });
      throw Object.assign(new Error('503'), { name: 'HttpRequestError', status: 503 });
    });
    await publish(client, plan, { id: 'e2e' });
    const dead = await waitFor(
      async () => {
        const got = await drain(client as Broker, rabbit.deadLetterQueue);
        return got.length > 0 ? got : undefined;
      },
      20_000,
      'the dead letter',
    );
    expect(seen.map((entry) => entry.attempt)).toEqual([1, 2, 3]);
    // The broker alone times these waits: its clock may run a little early.
    expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(earliestEnd(1_000));
    expect((seen[2]?.at ?? 0) - (seen[1]?.at ?? 0)).toBeGreaterThanOrEqual(earliestEnd(2_000));
    expect(dead[0]?.properties.headers).toMatchObject({
      [HEADERS.reason]: 'exhausted',
      [HEADERS.attempt]: 3,
    });
    await consumer.stop();
    consumer = undefined;
  });

  it('a delay change updates the main queue’s policy in place; a message held meanwhile still arrives', async () => {
    const rabbit = requireRabbit(plan);
    if (!client) throw new Error('no connection');
    // Hold a message: its first attempt fails, and the broker keeps it for the old 1 s.
    const attempts: number[] = [];
    consumer = await consumeWithRetries(client.channel, plan, async (_message, context) => {
      attempts.push(context.attempt);
      if (context.attempt === 1)
        throw Object.assign(new Error('503'), { name: 'HttpRequestError', status: 503 });
    });
    await publish(client, plan, { id: 'held' });
    await waitFor(() => attempts.length >= 1 || undefined, 10_000, 'the first attempt');

    workspace.editPolicy(0, (doc) => doc.setIn(['spec', 'backoff', 'delays'], ['3s', '6s']));
    const slow = await planOf(workspace.policyFiles[0] ?? '');
    const result = await up();
    const steps = changes(result);
    // Only the main queue's policy changes, and in place: no queue is replaced or deleted.
    expect(steps.map((step) => step.op)).toEqual(['update']);
    expect(steps.every((step) => step.type === 'rabbitmq:index/policy:Policy')).toBe(true);
    const main = requireRabbit(slow).policies.find((policy) => 'delayed-retry-min' in policy.definition);
    expect(await management.getPolicy(rabbit.vhost, main?.name ?? '')).toMatchObject({
      definition: { 'delayed-retry-min': 3_000, 'delayed-retry-max': 6_000 },
    });
    await waitFor(
      () => (attempts.length >= 2 ? true : undefined),
      20_000,
      'the held message after the update',
    );
    expect(attempts).toEqual([1, 2]);
    await consumer.stop();
    consumer = undefined;
    expect(await drain(client, rabbit.mainQueue)).toEqual([]);
  });

  it('pulumi destroy removes the stack', async () => {
    await workspace.pulumi(['destroy', '--yes', '--skip-preview']);
    destroyed = true;
    const rabbit = requireRabbit(plan);
    for (const policy of rabbit.policies)
      expect(await management.getPolicy(rabbit.vhost, policy.name)).toBeUndefined();
  });
});
