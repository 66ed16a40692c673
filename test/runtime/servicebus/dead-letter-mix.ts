import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceBusReceivedMessage } from '@azure/service-bus';
import { deadLettersCommand } from '../../../cli/commands/dead-letters';
import type { Connectors } from '../../../cli/dead-letters/connect';
import type { RetryPlan, ServiceBusPlan } from '../../../policy';
import { mulberry32 } from '../../../policy/random';
import { createServiceBusRetry, serviceBusDeadLetters } from '../../../runtime/servicebus';
import { type Fate, fateOf, idOf, MIX_SIZE } from '../../integration/dead-letters/mix';
import { FakeClock } from '../../support/fake-clock';
import { httpError, InvalidCurrencyError } from '../plan-fixture';
import { FakeServiceBus } from './fake/bus';
import { serviceBusPlan } from './harness';

/** The broker's own dead letters: a consumer that died three times on the same message. */
const MAX_DELIVERY_COUNT = 3;

export interface Processed {
  id: string;
  attempt: number;
  replays: unknown;
  replayedAt: number;
}

/**
 * A subscription target on the fake bus (topic `orders` with subscriptions `billing`, ours, and
 * `shipping`, someone else's), its retry queue, and the real Service Bus wrapper consuming both.
 * Replayed messages (those with `retry-replay-count`) succeed and are recorded.
 */
export function subscriptionBus(options: { lockDurationMs?: number } = {}) {
  const plan = serviceBusPlan({}, { entity: 'subscription', topic: 'orders', subscription: 'billing' });
  const target = plan.targets.serviceBus as ServiceBusPlan;
  const clock = new FakeClock();
  const bus = new FakeServiceBus(clock);
  const entity = { lockDurationMs: options.lockDurationMs ?? 60_000, maxDeliveryCount: MAX_DELIVERY_COUNT };
  const subscriptions = bus.topic('orders', { billing: entity, shipping: entity });
  const retryQueue = bus.queue(target.scheduleTo, entity);
  const processed: Processed[] = [];
  const retry = createServiceBusRetry(plan, {
    sender: bus.sender(target.scheduleTo),
    clock,
    random: () => 0.5,
    onError: () => {},
    handler: async (message, context) => {
      const { id, fate } = message.body as { id: string; fate: Fate };
      const replays = message.applicationProperties?.['retry-replay-count'];
      if (replays !== undefined) {
        processed.push({
          id,
          attempt: context.attempt,
          replays,
          replayedAt: Number(message.applicationProperties?.['retry-replayed-at']),
        });
        return;
      }
      if (fate === 'currency') throw new InvalidCurrencyError('Unsupported currency XXX');
      if (fate === 'type') throw new TypeError("Cannot read properties of undefined (reading 'total')");
      throw httpError(503);
    },
  });
  const billingPath = subscriptions.billing?.path as string;
  return {
    plan,
    target,
    clock,
    bus,
    billing: subscriptions.billing,
    shipping: subscriptions.shipping,
    retryQueue,
    processed,
    billingPath,
    /** Starts the runtime on the subscription and the retry queue. */
    start() {
      for (const path of [billingPath, target.scheduleTo])
        retry.subscribe(bus.receiver(path), { processError: async () => {} });
    },
    stop: () => retry.stop(),
    /** A fresh process's dead-letter commands on the fake bus. */
    commands(world: { seed?: number } = {}) {
      const receivers = [bus.deadLetterReceiver(billingPath), bus.deadLetterReceiver(target.scheduleTo)];
      const sender = bus.sender(target.scheduleTo);
      return {
        receivers,
        sender,
        commands: serviceBusDeadLetters(plan, {
          receivers,
          sender,
          clock,
          random: mulberry32(world.seed ?? 1),
        }),
      };
    },
  };
}

export type SubscriptionBus = ReturnType<typeof subscriptionBus>;

/** Moves the fake clock until the work is done (a command, a drain), in small steps. */
export async function drive<T>(
  clock: FakeClock,
  work: Promise<T>,
  stepMs = 50,
  limitMs = 3_600_000,
): Promise<T> {
  let done = false;
  let value: T | undefined;
  let failure: unknown;
  let failed = false;
  work.then(
    (result) => {
      done = true;
      value = result;
    },
    (error: unknown) => {
      done = true;
      failed = true;
      failure = error;
    },
  );
  for (let moved = 0; !done; moved += stepMs) {
    if (moved > limitMs) throw new Error(`still running after ${limitMs} ms of fake time`);
    await clock.advance(stepMs);
  }
  if (failed) throw failure;
  return value as T;
}

/**
 * Dead-letters the 500-message mix: the broker fates first, received and abandoned until the
 * subscription's MaxDeliveryCount moves them to its dead-letter subqueue; then the rest through
 * the runtime, on the fake clock, until every retry has run out.
 */
export async function deadLetterMix(sb: SubscriptionBus): Promise<void> {
  const sender = sb.bus.sender('orders');
  const send = (fates: Fate[]) =>
    sender.sendMessages(
      [...Array(MIX_SIZE).keys()]
        .filter((index) => fates.includes(fateOf(index)))
        .map((index) => ({
          body: { id: idOf(index), fate: fateOf(index) },
          messageId: idOf(index),
          contentType: 'application/json',
        })),
    );
  await send(['broker']);
  const crashing = sb.bus.receiver(sb.billingPath);
  for (let round = 0; round < MAX_DELIVERY_COUNT; round++) {
    const batch: ServiceBusReceivedMessage[] = await crashing.receiveMessages(1_000, { maxWaitTimeInMs: 0 });
    for (const message of batch) await crashing.abandonMessage(message);
  }
  sb.start();
  await send(['currency', 'type', 'http']);
  await sb.clock.advance(30_000);
}

/** The CLI, in-process, with the fake bus as its Service Bus connection and the fake clock. */
export function fakeCli(sb: SubscriptionBus) {
  const dir = mkdtempSync(join(tmpdir(), 'rt-dl-sb-'));
  const planFile = join(dir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(sb.plan));
  const connectors = {
    serviceBus: async () => ({ commands: sb.commands().commands, close: async () => {} }),
  } as unknown as Connectors;
  return {
    dir,
    planFile,
    async run(...argv: string[]) {
      const out: string[] = [];
      const err: string[] = [];
      const code = await drive(
        sb.clock,
        deadLettersCommand(
          [argv[0] as string, planFile, '--target', 'servicebus', ...argv.slice(1)],
          { out: (text) => out.push(text), err: (text) => err.push(text) },
          { env: {}, connectors, now: () => sb.clock.now(), handleSignals: false },
        ),
      );
      return { code, out: out.join(''), err: err.join('\n') };
    },
  };
}

export type { RetryPlan };
