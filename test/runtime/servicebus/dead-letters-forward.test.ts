import { describe, expect, it } from 'vitest';
import type { ServiceBusPlan } from '../../../policy';
import { serviceBusDeadLetters } from '../../../runtime/servicebus';
import { FakeClock } from '../../support/fake-clock';
import { drive } from './dead-letter-mix';
import { FakeServiceBus } from './fake/bus';
import { serviceBusPlan } from './harness';

describe('Service Bus dead letters forwarded to a shared queue (forwardDeadLettersTo)', () => {
  it('lists and replays only the dead letters of this target, never those others forwarded there', async () => {
    const plan = serviceBusPlan(
      {},
      {
        entity: 'subscription',
        topic: 'orders',
        subscription: 'billing',
        forwardDeadLettersTo: 'all.dead-letters',
      },
    );
    const target = plan.targets.serviceBus as ServiceBusPlan;
    const clock = new FakeClock();
    const bus = new FakeServiceBus(clock);
    const forward = { forwardDeadLettersTo: 'all.dead-letters' };
    const shared = bus.queue('all.dead-letters');
    const { billing } = bus.topic('orders', { billing: forward });
    const retryQueue = bus.queue(target.scheduleTo, forward);
    const shipping = bus.queue('shipping', forward);

    // Dead-letter some messages on each entity, as a consumer would.
    const bury = async (path: string, ids: string[]) => {
      const sender = bus.sender(path);
      await sender.sendMessages(ids.map((id) => ({ body: { id }, messageId: id })));
      const receiver = bus.receiver(path);
      for (const message of await receiver.receiveMessages(ids.length, { maxWaitTimeInMs: 0 }))
        await receiver.deadLetterMessage(message, {
          deadLetterReason: 'permanent',
          deadLetterErrorDescription: 'test',
        });
    };
    await bury(billing?.path ?? '', ['b-1', 'b-2', 'b-3']);
    await bury(retryQueue.path, ['r-1', 'r-2']);
    await bury(shipping.path, ['s-1', 's-2', 's-3', 's-4']);
    expect(shared.active).toHaveLength(9);

    const commands = serviceBusDeadLetters(plan, {
      receivers: [bus.receiver('all.dead-letters')],
      sender: bus.sender(target.scheduleTo),
      clock,
      random: () => 0.5,
    });
    expect(commands.locations).toEqual(['all.dead-letters']);
    const summary = await commands.list();
    expect(summary.total).toBe(5);
    expect(summary.bySource.map((each) => each.name).sort()).toEqual([billing?.path, retryQueue.path].sort());

    const report = await drive(clock, commands.replay({ ratePerSecond: 100, dryRun: false }));
    expect(report).toMatchObject({ selected: 5, replayed: 5 });
    const replayed = retryQueue.active.map((each) => (each.sent.body as { id: string }).id).sort();
    expect(replayed).toEqual(['b-1', 'b-2', 'b-3', 'r-1', 'r-2']);
    // The other consumer's dead letters are still there, untouched and unlocked.
    expect(shared.active.map((each) => (each.sent.body as { id: string }).id).sort()).toEqual([
      's-1',
      's-2',
      's-3',
      's-4',
    ]);
    expect(shared.lockedCount).toBe(0);
  });
});
