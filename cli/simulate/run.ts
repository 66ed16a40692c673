import type { RetryPlan } from '../../policy';
import type { TargetName } from '../../policy/plan/targets';
import { mulberry32 } from '../../policy/random';
import { simulate } from './model';
import { scenarios } from './scenarios';
import { bucketWidth, type RateStats, rateStats } from './stats';

/** One simulation, every scenario, as plain data: the text, JSON and SVG outputs all read this. */

export interface SimulationOptions {
  outageMs: number;
  ratePerSecond: number;
  backlog: number;
  seed: number;
  /** Requested bucket width; long tails widen it (see stats.ts). */
  bucketMs?: number;
}

export interface ScenarioReport extends Omit<RateStats, 'counts'> {
  name: string;
  label: string;
  /** Whether this scenario's waits have any spread. */
  jittered: boolean;
  messages: number;
  deadLettered: number;
  /** Retries per second in each bucket after recovery. */
  ratesPerSecond: number[];
}

export interface SimulationReport {
  policy: string;
  target: TargetName;
  outageMs: number;
  ratePerSecond: number;
  backlog: number;
  seed: number;
  bucketMs: number;
  retryWindowMs: { min: number; max: number };
  scenarios: ScenarioReport[];
}

export function runSimulation(
  plan: RetryPlan,
  target: TargetName,
  options: SimulationOptions,
): SimulationReport {
  const rules = plan.targets[target];
  if (!rules) throw new Error(`the plan has no ${target} target`);
  const runs = scenarios(rules, plan.classification).map((scenario) => ({
    scenario,
    // Each scenario gets its own generator from the same seed: adding a scenario never changes
    // the draws of another.
    run: simulate({
      rules: scenario.rules,
      outageMs: options.outageMs,
      ratePerSecond: options.ratePerSecond,
      backlog: options.backlog,
      random: mulberry32(options.seed),
    }),
  }));
  const horizon = Math.max(
    0,
    ...runs.flatMap(({ run }) => run.retriesAfterRecovery.reduce((a, b) => Math.max(a, b), 0)),
  );
  const bucketMs = bucketWidth(horizon, options.bucketMs);
  return {
    policy: plan.policy,
    target,
    outageMs: options.outageMs,
    ratePerSecond: options.ratePerSecond,
    backlog: options.backlog,
    seed: options.seed,
    bucketMs,
    retryWindowMs: rules.retryWindowMs,
    scenarios: runs.map(({ scenario, run }) => {
      const { counts, ...stats } = rateStats(run.retriesAfterRecovery, bucketMs);
      return {
        name: scenario.name,
        label: scenario.label,
        jittered: scenario.jittered,
        messages: run.messages,
        deadLettered: run.deadLettered,
        ...stats,
        ratesPerSecond: counts.map((count) => (count * 1_000) / bucketMs),
      };
    }),
  };
}
