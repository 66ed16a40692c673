import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readArchive } from '../../../runtime/dead-letters';
import {
  fasterThan,
  MIX_SIZE,
  missingAndExtra,
  mixIds,
  mostInOneSecond,
  tally,
} from '../../integration/dead-letters/mix';
import { deadLetterMix, fakeCli, type SubscriptionBus, subscriptionBus } from './dead-letter-mix';

/**
 * The dead-letter commands on Service Bus, which has no emulator here: the typed fake (peek,
 * peek-lock, complete, abandon, lock expiry) and the real Service Bus wrapper, through the CLI.
 * A subscription target has two dead-letter subqueues: the subscription's (attempt 1, and the
 * broker's MaxDeliveryCountExceeded) and the retry queue's (every exhausted message).
 */
describe('dead letters on Service Bus (the typed fake, through the CLI)', () => {
  let sb: SubscriptionBus;
  let cli: ReturnType<typeof fakeCli>;
  const list = async (...filters: string[]) => {
    const run = await cli.run('list', '--format', 'json', ...filters);
    expect(run.code, run.err).toBe(0);
    return JSON.parse(run.out);
  };

  beforeAll(async () => {
    sb = subscriptionBus();
    cli = fakeCli(sb);
    await deadLetterMix(sb);
  });

  it('lists exact counts from both subqueues, and changes nothing (peek)', async () => {
    const summary = await list();
    expect(summary.locations).toEqual([
      `${sb.billingPath}/$DeadLetterQueue`,
      `${sb.target.scheduleTo}/$DeadLetterQueue`,
    ]);
    expect(summary.total).toBe(MIX_SIZE);
    expect(summary.byReason).toEqual({ permanent: 300, exhausted: 150, 'broker-rejected': 50, unknown: 0 });
    expect(summary.byBrokerReason).toEqual([{ name: 'MaxDeliveryCountExceeded', count: 50 }]);
    expect(summary.bySource).toEqual([
      { name: sb.billingPath, count: 350 },
      { name: sb.target.scheduleTo, count: 150 },
    ]);
    expect(sb.billing?.deadLetterQueue?.active).toHaveLength(350);
    expect(sb.retryQueue.deadLetterQueue?.active).toHaveLength(150);
    expect(sb.billing?.deadLetterQueue?.lockedCount).toBe(0);
  });

  it('replays exactly the filtered ones to the retry queue, never the topic, no faster than the rate', async () => {
    const shippingBefore = sb.shipping?.active.length;
    const dry = await cli.run('replay', '--reason', 'permanent', '--error', 'TypeError');
    expect(dry.out).toContain('dry run: would replay 100 of 500');
    const run = await cli.run(
      'replay',
      '--reason',
      'permanent',
      '--error',
      'TypeError',
      '--rate',
      '100/s',
      '--yes',
      '--format',
      'json',
    );
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({
      selected: 100,
      replayed: 100,
      destination: sb.target.scheduleTo,
    });
    await sb.clock.advance(1_000);

    expect(missingAndExtra(tally(sb.processed.map((each) => each.id)), mixIds(['type']))).toEqual({
      missing: [],
      extra: [],
      duplicates: 0,
    });
    expect(new Set(sb.processed.map((each) => each.attempt))).toEqual(new Set([1]));
    const times = sb.processed.map((each) => each.replayedAt);
    expect(fasterThan(times, 100)).toEqual([]);
    expect(mostInOneSecond(times)).toBeLessThanOrEqual(100);
    // Paced, not just capped: 100 at 100/s take about a second of (fake) time.
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThanOrEqual(980);
    expect(sb.shipping?.active.length).toBe(shippingBefore);
    // Passed over ones were abandoned at the end: available again, none locked.
    expect(sb.billing?.deadLetterQueue?.lockedCount).toBe(0);
    expect((await list()).byReason).toEqual({
      permanent: 200,
      exhausted: 150,
      'broker-rejected': 50,
      unknown: 0,
    });
  });

  it('refuses a purge whose --expect is not the count, and archives before it completes', async () => {
    const wrong = await cli.run('purge', '--reason', 'broker-rejected', '--expect', '49', '--yes');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('[expect-mismatch]');
    expect(sb.billing?.deadLetterQueue?.active).toHaveLength(250);

    const archive = join(cli.dir, 'broker.jsonl');
    const purge = await cli.run(
      'purge',
      '--reason',
      'broker-rejected',
      '--expect',
      '50',
      '--archive',
      archive,
      '--yes',
    );
    expect(purge.code, purge.err).toBe(0);
    expect(sb.billing?.deadLetterQueue?.active).toHaveLength(200);
    const archived = await readArchive(archive);
    expect(archived.map((letter) => letter.messageId).sort()).toEqual(mixIds(['broker']));
    for (const letter of archived) {
      expect(JSON.parse(letter.body.toString())).toEqual({ id: letter.messageId, fate: 'broker' });
      expect(letter.properties).toMatchObject({
        bodyKind: 'json',
        deadLetterReason: 'MaxDeliveryCountExceeded',
        contentType: 'application/json',
      });
    }
  });
});
