/**
 * One application process for the chaos test: the runtime on the plan in WORKER_PLAN, with a
 * handler whose outcome depends only on the record and its attempt (WORKER_OUTCOMES: a number n
 * fails attempts 1..n with a 503, `permanent` fails with InvalidCurrencyError), so a duplicate
 * run ends the way the first one did. Every handler call and its outcome is appended to
 * WORKER_LOG (synchronously, O_APPEND: the file's line order is the order the calls happened in,
 * across processes, and a SIGKILL loses no line), and so are the errors the runtime recovered
 * from and every group join or rebalance of its consumers. WORKER_CHAIN=1 runs the runtime with
 * run(kafka) (per-key order needs it: one consumer, made by the runtime, for the whole chain);
 * else runMain and runRetry. Started with
 * `node --import tsx test/integration/kafka/chaos-worker.ts`; SIGTERM stops it gracefully.
 */
import { appendFileSync } from 'node:fs';
import type { RetryPlan } from '../../../policy';
import { type ConsumerLike, createKafkaRetry } from '../../../runtime/kafka';
import { FAST, kit } from '../../support/kafka-kit';
import { watched } from './watched';
import { startWired, wiringOptions } from './wiring';

class InvalidCurrencyError extends Error {
  override name = 'InvalidCurrencyError';
}

async function main() {
  const plan = JSON.parse(process.env.WORKER_PLAN ?? '') as RetryPlan;
  const outcomes = JSON.parse(process.env.WORKER_OUTCOMES ?? '{}') as Record<string, number | 'permanent'>;
  const log = process.env.WORKER_LOG ?? '';
  const chain = process.env.WORKER_CHAIN === '1';
  const target = plan.targets.kafka;
  if (!target || !log) throw new Error('WORKER_PLAN with a kafka target and WORKER_LOG are needed');
  const write = (line: Record<string, unknown>) =>
    appendFileSync(log, `${JSON.stringify({ ...line, pid: process.pid })}\n`);

  // Every group join or rebalance, as `{ ev: 'event' }`: the test reads duplicates against them.
  const client = watched(await kit(), ({ event }) => write({ ev: 'event', what: event }));
  const admin = client.admin();
  const producer = client.producer();
  await Promise.all([admin.connect(), producer.connect()]);
  // A 6 s session (the broker's minimum): a killed member's partitions move after that long.
  const settings = { ...FAST, sessionTimeout: 6_000, rebalanceTimeout: 10_000, fromBeginning: true };
  const retry = createKafkaRetry({
    plan,
    producer,
    admin,
    client: client.client,
    fromBeginning: true,
    ...wiringOptions(settings, chain),
    meter: undefined,
    onEvent: (event) => {
      if (event.type === 'failed') write({ ev: 'runtime-failed', code: event.error.code, role: event.role });
      if (event.type === 'parked') write({ ev: 'parked', role: event.role });
    },
    handler: async (message, context) => {
      const v = String(message.value);
      const outcome = outcomes[v] ?? 0;
      // The application's own headers, as the producer sent them (the test checks them).
      const h = ['x-request-id', 'traceparent']
        .map((name) => String(message.headers?.[name] ?? ''))
        .join(' ');
      write({ ev: 'call', v, a: context.attempt, h });
      if (outcome === 'permanent') {
        write({ ev: 'fail', v, a: context.attempt, permanent: true });
        throw new InvalidCurrencyError(`unsupported currency in ${v}`);
      }
      if (context.attempt <= outcome) {
        write({ ev: 'fail', v, a: context.attempt });
        throw Object.assign(new Error('HTTP 503'), { name: 'HttpRequestError', status: 503 });
      }
      write({ ev: 'ok', v, a: context.attempt });
    },
  });
  const consumers = await startWired(retry, client, target, settings, chain, (main) => traced(main, write));
  process.stdout.write('running\n');
  process.once('SIGTERM', async () => {
    await retry.stop();
    await Promise.all([...consumers.map((c) => c.disconnect()), producer.disconnect(), admin.disconnect()]);
    process.exit(0);
  });
}

/**
 * The main consumer with what it reads and commits written to the log (`read`, `commit`), so a
 * duplicate can be traced to the commit it was read again from.
 */
function traced(consumer: ConsumerLike, write: (line: Record<string, unknown>) => void): ConsumerLike {
  return new Proxy(consumer, {
    get(target, property) {
      if (property === 'run') {
        return (config: Parameters<ConsumerLike['run']>[0]) => {
          const { eachMessage } = config;
          if (!eachMessage) return target.run(config);
          return target.run({
            ...config,
            eachMessage: (payload) => {
              const { partition, message } = payload;
              write({ ev: 'read', p: partition, o: message.offset, v: String(message.value) });
              return eachMessage(payload);
            },
          });
        };
      }
      if (property === 'commitOffsets') {
        return async (offsets: Parameters<ConsumerLike['commitOffsets']>[0]) => {
          for (const o of offsets) write({ ev: 'commit', p: o.partition, o: o.offset, m: o.metadata });
          await target.commitOffsets(offsets);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
