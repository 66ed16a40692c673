import { describe, expect, it } from 'vitest';
import { BILLING, BILLING_FULL_JITTER, cli, tempPolicy } from './cli-harness';

describe('retry-topology render', () => {
  it('draws fixed waits as milestones at each attempt time', async () => {
    const result = await cli(
      'render',
      'policies/billing.yaml',
      '--format',
      'mermaid',
      '--target',
      'rabbitmq',
    );
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^gantt\n/);
    // 1 s, 2 s, 4 s: attempts at 0, 1, 3 and 7 s, dead letter at 7 s.
    for (const at of [0, 1000, 3000, 7000])
      expect(result.out).toMatch(new RegExp(`milestone, m\\d, ${at}, 0ms`));
    expect(result.out).toMatch(/dead letter .*: crit, milestone, m4, 7000, 0ms/);
  });

  it('draws jitter as bands from the earliest to the latest moment', async () => {
    const file = tempPolicy(BILLING_FULL_JITTER);
    const result = await cli('render', file, '--format', 'mermaid', '--target', 'kafka');
    expect(result.code).toBe(0);
    // Full jitter: attempt 2 in [0, 1s], attempt 3 in [0, 3s], attempt 4 in [0, 7s].
    expect(result.out).toMatch(/attempt 2 after 0s–1s .*: m1, 0, 1000\n/);
    expect(result.out).toMatch(/attempt 4 after 0s–4s .*: m3, 0, 7000\n/);
  });

  it('says which target it took when the policy has several', async () => {
    const result = await cli('render', 'policies/billing.yaml', '--format', 'mermaid');
    expect(result.code).toBe(0);
    expect(result.err).toContain('target rabbitmq');
    expect(result.err).toContain('--target');
  });

  it('draws the topology from source to dead letter', async () => {
    const result = await cli(
      'render',
      'policies/billing.yaml',
      '--format',
      'mermaid',
      '--view',
      'topology',
      '--target',
      'kafka',
    );
    expect(result.code).toBe(0);
    expect(result.out).toContain('flowchart LR');
    expect(result.out).toMatch(/source -->\|"produce"\| main/);
    expect(result.out).toMatch(/main -->\|"attempt 1 fails"\| retry_1/);
    expect(result.out).toMatch(/retry_3 ==>\|"exhausted"\| dlt/);
  });

  it.each(['timeline', 'topology'])('writes a self-contained SVG (%s)', async (view) => {
    const result = await cli('render', 'policies/billing.yaml', '--format', 'svg', '--view', view);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/,
    );
    expect(result.out).not.toMatch(/<script|href=|@import|@font-face|<foreignObject/i);
    expect(result.out).toContain('font-family="sans-serif"');
  });

  it('asks for --policy when the file holds several policies', async () => {
    // Its own queue, group and subscription: two policies may not own one entity.
    const second = BILLING.replace('name: billing.order-placed', 'name: billing.refunds')
      .replace('queue: billing.order-placed', 'queue: billing.refunds')
      .replace('consumerGroup: billing', 'consumerGroup: billing-refunds')
      .replace('subscription: billing', 'subscription: billing-refunds')
      .replace('declareTopic: true', 'declareTopic: false')
      .replace('declareExchange: true', 'declareExchange: false');
    const file = tempPolicy(`${BILLING}\n---\n${second}`);
    const result = await cli('render', file, '--format', 'svg');
    expect(result.code).toBe(2);
    expect(result.err).toContain('--policy');
    expect((await cli('render', file, '--format', 'svg', '--policy', 'billing.refunds')).code).toBe(0);
  });

  it('refuses an unknown format, view or target with the usage', async () => {
    expect((await cli('render', 'policies/billing.yaml', '--format', 'png')).code).toBe(2);
    expect((await cli('render', 'policies/billing.yaml', '--format', 'svg', '--view', 'gantt')).code).toBe(2);
    const target = await cli('render', 'policies/billing.yaml', '--format', 'svg', '--target', 'sqs');
    expect(target.code).toBe(2);
    expect(target.err).toContain('unknown target "sqs"');
  });

  it('takes serviceBus in either spelling, and no name an object inherits as a target', async () => {
    const render = (target: string) =>
      cli('render', 'policies/billing.yaml', '--format', 'mermaid', '--view', 'topology', '--target', target);
    for (const spelling of ['servicebus', 'serviceBus']) {
      const result = await render(spelling);
      expect(result.code).toBe(0);
      expect(result.out).toContain('topology on serviceBus');
    }
    for (const word of ['toString', 'constructor', '__proto__', 'ServiceBus']) {
      const result = await render(word);
      expect(result.code).toBe(2);
      expect(result.err).toBe(
        `✖ unknown target "${word}": use rabbitmq, kafka or servicebus\n  retry-topology render --help shows every option`,
      );
    }
  });
});
