import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../policy/random';
import { missingAndExtra, mixIds, tally } from '../../integration/dead-letters/mix';
import { deadLetterMix, drive, subscriptionBus } from './dead-letter-mix';

const ids = (messages: Array<{ sent: { body?: unknown } }>) =>
  messages.map((each) => (each.sent.body as { id: string }).id);

describe('a Service Bus replay that dies (the typed fake)', () => {
  it('loses nothing when the process dies at three random points and the replay is run again', async () => {
    const seed = Date.now() % 100_000;
    const random = mulberry32(seed);
    const sb = subscriptionBus();
    await deadLetterMix(sb);
    const selected = mixIds(['http']);
    const crashes: string[] = [];
    for (let crash = 0; crash < 3; crash++) {
      const process = sb.commands({ seed: seed + crash });
      const left = sb.retryQueue.deadLetterQueue?.active.length ?? 0;
      const after = Math.floor(random() * left);
      const where = (['send', 'complete', 'receive'] as const)[Math.floor(random() * 3)] ?? 'send';
      if (where === 'send') process.sender.crashWhenSending({ after });
      if (where === 'complete') process.receivers[1]?.crashWhenCalling('completeMessage', { after });
      if (where === 'receive')
        process.receivers[1]?.crashWhenCalling('receiveMessages', { after: Math.floor(after / 10) });
      crashes.push(`${where} after ${after}`);
      const running = process.commands.replay({
        filter: { reasons: ['exhausted'] },
        ratePerSecond: 50,
        dryRun: false,
      });
      let finished = false;
      void running.then(() => {
        finished = true;
      });
      const dead = () => process.sender.isCrashed || process.receivers.some((receiver) => receiver.isCrashed);
      while (!dead() && !finished) await sb.clock.advance(20);
      // The dead process never settles again: its locks run out and the messages come back.
      await sb.clock.advance(61_000);
    }
    const last = sb.commands({ seed: seed + 3 });
    const report = await drive(
      sb.clock,
      last.commands.replay({ filter: { reasons: ['exhausted'] }, ratePerSecond: 50, dryRun: false }),
    );
    await sb.clock.advance(5_000);

    const replayed = missingAndExtra(tally(sb.processed.map((each) => each.id)), selected);
    console.log(
      `Service Bus kill/resume (seed ${seed}): ${crashes.join('; ')}; last run replayed ${report.replayed}; ${replayed.duplicates} duplicates`,
    );
    expect(replayed.missing).toEqual([]);
    expect(replayed.extra).toEqual([]);
    expect(replayed.duplicates).toBeLessThanOrEqual(3);
    expect(new Set(sb.processed.map((each) => each.attempt))).toEqual(new Set([1]));
    // The rest untouched: each still in its subqueue exactly once.
    expect(sb.retryQueue.deadLetterQueue?.active).toEqual([]);
    const still = tally(ids(sb.billing?.deadLetterQueue?.active ?? []));
    expect(missingAndExtra(still, mixIds(['currency', 'type', 'broker']))).toEqual({
      missing: [],
      extra: [],
      duplicates: 0,
    });
  });

  it('keeps the locks of the messages it replays at a slow rate, and gives back the ones it passes over', async () => {
    const sb = subscriptionBus({ lockDurationMs: 10_000 });
    await deadLetterMix(sb);
    const process = sb.commands();
    const report = await drive(
      sb.clock,
      process.commands.replay({ filter: { reasons: ['exhausted'] }, ratePerSecond: 2, dryRun: false }),
      200,
    );
    await sb.clock.advance(5_000);
    expect(report.replayed).toBe(150);
    // 150 at 2/s: each lock (10 s) renewed before its copy went, none lost, none replayed twice.
    expect(sb.retryQueue.deadLetterQueue?.renewals.length).toBeGreaterThan(0);
    expect(sb.retryQueue.deadLetterQueue?.lockLosses).toEqual([]);
    expect(missingAndExtra(tally(sb.processed.map((each) => each.id)), mixIds(['http']))).toEqual({
      missing: [],
      extra: [],
      duplicates: 0,
    });
    // Passed over: their locks ran out while the replay went on; they are all still there.
    expect(sb.billing?.deadLetterQueue?.lockLosses.length).toBeGreaterThan(0);
    expect(sb.billing?.deadLetterQueue?.active).toHaveLength(350);
    expect(sb.billing?.deadLetterQueue?.lockedCount).toBe(0);
  });
});
