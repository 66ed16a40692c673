import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLetterHeaders } from '../../../runtime';
import { ensureBuiltCli, startCli } from '../dead-letters/cli-process';
import { missingAndExtra, tally } from '../dead-letters/mix';
import { TcpProxy } from '../dead-letters/tcp-proxy';
import { instanceVersion, peekAll } from './dead-letter-mix';
import {
  AMQP_URL,
  type Broker,
  body,
  connect,
  drain,
  rabbitPlan,
  uniqueName,
  waitFor,
  withTopology,
} from './support';

describe('a RabbitMQ replay whose broker goes away mid-run', () => {
  const plan = rabbitPlan(uniqueName('dl-cut'), {}, { brokerVersion: instanceVersion() });
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('no rabbitmq target');
  const ids = [...Array(60).keys()].map((index) => `cut-${index}`);
  const planFile = join(mkdtempSync(join(tmpdir(), 'rt-dl-cut-')), 'plan.json');
  writeFileSync(planFile, JSON.stringify(plan));
  let broker: Broker;
  let removeTopology: () => Promise<void>;

  beforeAll(async () => {
    ensureBuiltCli();
    removeTopology = await withTopology(plan);
    broker = await connect();
    // Dead letters as the runtime publishes them: through the dead-letter exchange, with reasons.
    for (const id of ids) {
      broker.channel.publish(
        rabbit.deadLetterExchange,
        rabbit.mainQueue,
        Buffer.from(JSON.stringify({ id })),
        {
          persistent: true,
          messageId: id,
          headers: deadLetterHeaders({
            reason: 'exhausted',
            because: 'transient: HTTP 503',
            errorName: 'HttpRequestError',
            errorMessage: 'HTTP 503',
            attempt: 4,
            source: rabbit.mainQueue,
            firstFailureAt: Date.now(),
            deadLetteredAt: Date.now(),
          }),
        },
      );
    }
    await broker.channel.waitForConfirms();
  }, 300_000);

  afterAll(async () => {
    await broker?.close();
    await removeTopology?.();
  });

  it('stops with a coded error and no stack trace, and every message is dead-lettered or replayed', async () => {
    const proxy = await new TcpProxy('127.0.0.1', Number(new URL(AMQP_URL).port || 5672)).start();
    const { finished } = startCli([
      'replay',
      planFile,
      '--target',
      'rabbitmq',
      '--url',
      `amqp://guest:guest@127.0.0.1:${proxy.port}`,
      '--rate',
      '20/s',
      '--yes',
    ]);
    await waitFor(
      async () => ((await broker.channel.checkQueue(rabbit.mainQueue)).messageCount >= 10 ? true : undefined),
      60_000,
      'ten replayed',
    );
    await proxy.cut();
    const run = await finished;
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('[broker-failed]');
    expect(run.stderr).toContain('still dead-lettered');
    expect(run.stderr).not.toMatch(/\n\s+at /);

    const replayed = (await drain(broker, rabbit.mainQueue)).map((message) => body(message).id);
    const dead = (await peekAll(broker, rabbit.deadLetterQueue)).map((message) => body(message).id);
    const counted = missingAndExtra(tally([...replayed, ...dead]), ids);
    console.log(
      `RabbitMQ cut mid-run: ${replayed.length} replayed, ${dead.length} still dead-lettered, ${counted.duplicates} in both`,
    );
    expect(counted.missing).toEqual([]);
    expect(counted.extra).toEqual([]);
    expect(replayed.length).toBeGreaterThanOrEqual(10);
    expect(dead.length).toBeGreaterThan(0);
  });
});
