/**
 * One application process for the kill tests: the runtime on the plan in WORKER_PLAN, with a
 * handler that fails record `value` while its attempt is at most WORKER_FAILURES[value], and
 * appends every success to WORKER_LOG (synchronously: a SIGKILL right after loses no line).
 * WORKER_CHAIN=1 runs per-key order on the batched engine, with one consumer for the whole chain
 * (run(kafka)). Started with `node --import tsx test/integration/kafka/worker.ts`; ends on SIGTERM.
 *
 * Besides, every group join or rebalance of the process's consumers and every `failed` event is
 * appended as `{ event, pid }`: each is a way records get read again inside one process, so the
 * test can tell a duplicate it explains from one nothing explains.
 */
import { appendFileSync } from 'node:fs';
import type { RetryPlan } from '../../../policy';
import { createKafkaRetry } from '../../../runtime/kafka';
import { FAST, kit } from '../../support/kafka-kit';
import { watched } from './watched';
import { startWired, wiringOptions } from './wiring';

async function main() {
  const plan = JSON.parse(process.env.WORKER_PLAN ?? '') as RetryPlan;
  const failures = JSON.parse(process.env.WORKER_FAILURES ?? '{}') as Record<string, number>;
  const log = process.env.WORKER_LOG ?? '';
  const target = plan.targets.kafka;
  if (!target || !log) throw new Error('WORKER_PLAN with a kafka target and WORKER_LOG are needed');
  const note = (line: object) => appendFileSync(log, `${JSON.stringify({ ...line, pid: process.pid })}\n`);
  const client = watched(await kit(), note);
  const admin = client.admin();
  const producer = client.producer();
  await Promise.all([admin.connect(), producer.connect()]);
  const settings = { ...FAST, fromBeginning: true };
  const chain = process.env.WORKER_CHAIN === '1';
  const retry = createKafkaRetry({
    plan,
    producer,
    admin,
    client: client.client,
    fromBeginning: true,
    ...wiringOptions(settings, chain),
    meter: undefined,
    onEvent: (event) => {
      if (event.type === 'failed') note({ event: `failed ${event.error.code}`, topic: event.topic });
    },
    handler: async (message, context) => {
      const value = String(message.value);
      if (context.attempt <= (failures[value] ?? 0)) {
        throw Object.assign(new Error('HTTP 503'), { name: 'HttpRequestError', status: 503 });
      }
      note({ value, attempt: context.attempt });
    },
  });
  const consumers = await startWired(retry, client, target, settings, chain);
  process.stdout.write('running\n');
  process.once('SIGTERM', async () => {
    await retry.stop();
    await Promise.all([...consumers.map((c) => c.disconnect()), producer.disconnect(), admin.disconnect()]);
    process.exit(0);
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
