import { describe, expect, it } from 'vitest';
import { simulateReplay } from '../../cli/dead-letters/simulate-replay';
import { PACER_MARGIN_MS } from '../../runtime/dead-letters';
import { billingPlanFor } from '../support/billing-policy';
import { cli } from './cli-harness';

const plan = billingPlanFor('replay.sim', {
  kafka: { topic: 'orders', consumerGroup: 'billing', partitions: 3, replicationFactor: 1 },
});

describe('simulate --replay: what replaying dead letters at a rate does', () => {
  it('paces them at the rate with jitter, where unpaced they would all come at once', async () => {
    const report = await simulateReplay(plan, 'kafka', { messages: 500, ratePerSecond: 50, seed: 3 });
    expect(report.durationMs).toBeGreaterThanOrEqual((500 - 2) * 20);
    // Ten seconds, and the cap's margin once a second.
    expect(report.durationMs).toBeLessThanOrEqual(500 * 20 + 10 * PACER_MARGIN_MS);
    // At most the rate, plus the one message a second's edge can cut into.
    expect(report.fixedPeakPerSecond).toBeLessThanOrEqual(51);
    expect(report.fixedPeakPerSecond).toBeGreaterThanOrEqual(49);
    expect(report.unpacedPeakPerSecond).toBe(500);
  });

  it('follows each one through the policy again when the cause is not fixed', async () => {
    const report = await simulateReplay(plan, 'kafka', { messages: 200, ratePerSecond: 100, seed: 3 });
    const kafka = plan.targets.kafka;
    // Four attempts each, no immediate retries in this policy.
    expect(report.stillFailing.calls).toBe(200 * plan.maxAttempts);
    expect(report.stillFailing.backFromMs).toBeGreaterThanOrEqual(kafka?.retryWindowMs.min ?? 0);
    // The first copy goes within the first 10 ms slot; the last one's retries end a window later.
    expect(report.stillFailing.backUntilMs).toBeLessThanOrEqual(
      report.durationMs + 10 + (kafka?.retryWindowMs.max ?? 0),
    );
  });

  it('is the same for the same seed', async () => {
    const a = await simulateReplay(plan, 'kafka', { messages: 300, ratePerSecond: 40, seed: 9 });
    const b = await simulateReplay(plan, 'kafka', { messages: 300, ratePerSecond: 40, seed: 9 });
    expect(a).toEqual(b);
  });

  it('prints it, and refuses what it cannot simulate', async () => {
    const run = await cli(
      'simulate',
      'policies/billing.yaml',
      '--replay',
      '500',
      '--rate',
      '50/s',
      '--target',
      'kafka',
    );
    expect(run.code).toBe(0);
    expect(run.out).toContain('replaying 500 dead letters of billing.order-placed on kafka at 50/s');
    const bad = await cli('simulate', 'policies/billing.yaml', '--replay', 'lots', '--rate', '0/s');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--replay needs a whole number');
    expect(bad.err).toContain('--rate needs a rate');
  });
});
