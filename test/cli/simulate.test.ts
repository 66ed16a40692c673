import { describe, expect, it } from 'vitest';
import { simulate } from '../../cli/simulate/model';
import { parseRate } from '../../cli/simulate/rate';
import { runSimulation, type SimulationReport } from '../../cli/simulate/run';
import { derivePlan, loadPolicyText } from '../../policy';
import { mulberry32 } from '../../policy/random';
import { BILLING, BILLING_FULL_JITTER, cli, expectGolden, tempPolicy } from './cli-harness';

function planOf(text: string) {
  const [loaded] = loadPolicyText(text).policies;
  if (!loaded) throw new Error('the test policy did not load');
  return derivePlan(loaded.policy);
}

const scenario = (report: SimulationReport, name: string) => {
  const found = report.scenarios.find((each) => each.name === name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
};

describe('parseRate', () => {
  it.each([
    ['100/s', 100],
    ['6000/m', 100],
    ['36/h', 0.01],
  ])('reads %s', (text, perSecond) => expect(parseRate(text)).toBeCloseTo(perSecond));
  it.each(['100', '0/s', 'fast/s', '10/d'])('refuses %s', (text) => expect(parseRate(text)).toBeUndefined());
});

describe('the outage model', () => {
  const plan = planOf(BILLING);
  const rabbit = plan.targets.rabbitmq;
  if (!rabbit) throw new Error('the billing example has a rabbitmq target');
  const rules = { ...rabbit, classification: plan.classification };

  it('dead-letters what exhausts its attempts in the outage and retries the rest once after it', () => {
    // 10 s at 100/s with fixed waits 1 s, 2 s, 4 s (window 7 s): a message arriving at a has calls at
    // a, a+1, a+3 and a+7 s. Those with a+7 < 10 (a < 3 s: 300 messages) are dead-lettered.
    const run = simulate({ rules, outageMs: 10_000, ratePerSecond: 100, backlog: 0, random: mulberry32(1) });
    expect(run.messages).toBe(1000);
    expect(run.deadLettered).toBe(300);
    expect(run.retriesAfterRecovery).toHaveLength(700);
    expect(Math.max(...run.retriesAfterRecovery)).toBeLessThan(4000);
  });

  it('gives the same result for the same seed', () => {
    const jittered = planOf(BILLING_FULL_JITTER);
    const options = { outageMs: 60_000, ratePerSecond: 100, backlog: 500, seed: 9 };
    expect(runSimulation(jittered, 'kafka', options)).toEqual(runSimulation(jittered, 'kafka', options));
    expect(runSimulation(jittered, 'kafka', { ...options, seed: 10 })).not.toEqual(
      runSimulation(jittered, 'kafka', options),
    );
  });

  it('full jitter spreads a burst that failed together: lower peak/mean than none, same seed', () => {
    const report = runSimulation(planOf(BILLING_FULL_JITTER), 'kafka', {
      outageMs: 5_000,
      ratePerSecond: 100,
      backlog: 2_000,
      seed: 1,
    });
    const full = scenario(report, 'planned');
    const none = scenario(report, 'none');
    expect(full.jittered).toBe(true);
    expect(full.peakToMean).toBeLessThan(none.peakToMean);
    expect(full.peakPerSecond).toBeLessThan(none.peakPerSecond / 2);
  });

  it('a steady stream of failures comes back at (levels × rate) with or without jitter', () => {
    // The first 200 ms after recovery: each of the 3 levels still has its steady flow due. Full
    // jitter expects 1000/s × (0.9 + 0.95 + 0.975) = 2825/s there, give or take the draw.
    const report = runSimulation(planOf(BILLING_FULL_JITTER), 'kafka', {
      outageMs: 60_000,
      ratePerSecond: 1000,
      backlog: 0,
      seed: 1,
      bucketMs: 200,
    });
    const first = (name: string) => scenario(report, name).ratesPerSecond[0] ?? 0;
    expect(first('none')).toBe(3000);
    expect(first('planned')).toBeGreaterThan(2500);
    expect(first('planned')).toBeLessThan(3100);
  });

  it('runs 60,000 messages (10 minutes at 100/s) through every scenario', () => {
    const report = runSimulation(planOf(BILLING_FULL_JITTER), 'kafka', {
      outageMs: 600_000,
      ratePerSecond: 100,
      backlog: 0,
      seed: 1,
    });
    for (const each of report.scenarios) {
      expect(each.messages).toBe(60_000);
      expect(each.deadLettered + each.retries).toBe(60_000);
    }
  });
});

describe('retry-topology simulate', () => {
  it('compares the plan without jitter to full jitter, and says what it assumed', async () => {
    const result = await cli('simulate', 'policies/billing.yaml', '--outage', '10m', '--rate', '100/s');
    expect(result.code).toBe(0);
    expect(result.err).toContain('target rabbitmq');
    expect(result.out).toContain('as planned (jitter none)');
    expect(result.out).toContain('what if full jitter (this target cannot apply it)');
    expect(result.out).toMatch(/dead-lettered in the outage\s+59,300/);
    expect(result.out).toMatch(/peak retry rate\s+300\/s at \+0s/);
    expect(result.out).toContain('outlasts the retry window');
  });

  it('prints JSON and a self-contained SVG chart', async () => {
    const json = await cli(
      'simulate',
      'policies/billing.yaml',
      '--outage',
      '1m',
      '--rate',
      '10/s',
      '--format',
      'json',
      '--seed',
      '3',
    );
    const report = JSON.parse(json.out) as SimulationReport;
    expect(report.seed).toBe(3);
    expect(report.scenarios.map((each) => each.name)).toEqual(['planned', 'full']);
    const svg = await cli(
      'simulate',
      'policies/billing.yaml',
      '--outage',
      '1m',
      '--rate',
      '10/s',
      '--format',
      'svg',
    );
    expect(svg.out).toMatch(/^<\?xml/);
    expect(svg.out).not.toMatch(/<script|href=/);
  });

  it('refuses a missing outage, a bad rate or a huge run with the usage', async () => {
    const file = tempPolicy(BILLING);
    const missing = await cli('simulate', file, '--rate', '100/s');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--outage needs a duration');
    expect((await cli('simulate', file, '--outage', '10m', '--rate', 'lots')).code).toBe(2);
    const huge = await cli('simulate', file, '--outage', '1d', '--rate', '1000/s');
    expect(huge.code).toBe(2);
    expect(huge.err).toContain('messages');
  });
});

describe('golden simulation of policies/billing.yaml', () => {
  it.each([
    ['text', 'txt'],
    ['svg', 'svg'],
  ])('10 minutes at 100/s as %s', async (format, extension) => {
    const result = await cli(
      'simulate',
      'policies/billing.yaml',
      '--outage',
      '10m',
      '--rate',
      '100/s',
      '--seed',
      '1',
      '--format',
      format,
    );
    expectGolden(`billing.simulate.${extension}`, result.out);
  });
});

describe('the scenarios compared', () => {
  it('on a target that cannot apply the policy jitter, compares the plan with full jitter as a what-if', async () => {
    const report = runSimulation(planOf(BILLING_FULL_JITTER), 'rabbitmq', {
      outageMs: 60_000,
      ratePerSecond: 10,
      backlog: 0,
      seed: 1,
    });
    expect(report.scenarios.map((each) => [each.name, each.jittered])).toEqual([
      ['planned', false],
      ['full', true],
    ]);
    expect(report.scenarios[0]?.label).toBe('as planned (jitter none: "full" cannot apply on this target)');
  });
});
