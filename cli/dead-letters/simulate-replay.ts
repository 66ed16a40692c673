import { formatDuration, type RetryPlan } from '../../policy';
import type { TargetName } from '../../policy/plan/targets';
import { safeJson } from '../../policy/printable';
import { mulberry32 } from '../../policy/random';
import { type Clock, decide, TransientError } from '../../runtime';
import { Pacer } from '../../runtime/dead-letters';
import { textTable } from '../format/table';
import { loadInputs } from '../load-inputs';
import { EXIT, type Output } from '../output';
import { chooseOne, targetOption } from '../select';
import { parseRate } from '../simulate/rate';
import { rateStats } from '../simulate/stats';

/**
 * `simulate --replay N --rate R`: what replaying N dead letters does to the dependency, with the
 * replay's own pacer (runtime/dead-letters/pacer.ts) and the runtime's own decide(), seeded.
 * Two cases: the cause was fixed (each replayed message is one call), and it was not (each goes
 * through the policy's retries again and ends back in the dead letters). Calls take no time.
 */

export interface ReplaySimulation {
  policy: string;
  target: TargetName;
  messages: number;
  ratePerSecond: number;
  seed: number;
  /** From the first replayed copy to the last. */
  durationMs: number;
  /** Calls per second the dependency sees in its busiest second, if the cause was fixed. */
  fixedPeakPerSecond: number;
  /** The same with no rate: every message at once. */
  unpacedPeakPerSecond: number;
  /** If the cause was not fixed: every attempt again, and when they are dead letters again. */
  stillFailing: { calls: number; peakPerSecond: number; backFromMs: number; backUntilMs: number };
}

/** A clock whose sleeps pass at once: the pacer's waits become plain arithmetic. */
function virtualClock(): Clock & { at: number } {
  const clock = {
    at: 0,
    now: () => clock.at,
    sleep: async (ms: number) => {
      clock.at += ms;
    },
  };
  return clock;
}

const ONE_SECOND = 1_000;
const FAILING = new TransientError('the cause is not fixed yet');

export async function simulateReplay(
  plan: RetryPlan,
  target: TargetName,
  options: { messages: number; ratePerSecond: number; seed: number },
): Promise<ReplaySimulation> {
  const rules = plan.targets[target];
  if (!rules) throw new Error(`the plan has no ${target} target`);
  const random = mulberry32(options.seed);
  const clock = virtualClock();
  const pacer = new Pacer(options.ratePerSecond, clock, random);
  const sent: number[] = [];
  for (let index = 0; index < options.messages; index++) {
    await pacer.wait();
    sent.push(clock.at);
  }
  const calls: number[] = [];
  let backFromMs = Number.POSITIVE_INFINITY;
  let backUntilMs = 0;
  const decisionRules = { ...rules, classification: plan.classification };
  for (const start of sent) {
    let now = start;
    let attempt = 1;
    let immediateRetries = 0;
    for (;;) {
      calls.push(now);
      const decision = decide(decisionRules, { attempt, immediateRetries, error: FAILING, now, random });
      if (decision.kind === 'immediate') {
        now += decision.delayMs;
        immediateRetries = decision.retry;
      } else if (decision.kind === 'delayed') {
        now += decision.delayMs;
        attempt = decision.nextAttempt;
        immediateRetries = 0;
      } else {
        backFromMs = Math.min(backFromMs, now);
        backUntilMs = Math.max(backUntilMs, now);
        break;
      }
    }
  }
  const first = sent[0] ?? 0;
  return {
    policy: plan.policy,
    target,
    messages: options.messages,
    ratePerSecond: options.ratePerSecond,
    seed: options.seed,
    durationMs: (sent[sent.length - 1] ?? 0) - first,
    fixedPeakPerSecond: rateStats(sent, ONE_SECOND).peakPerSecond,
    unpacedPeakPerSecond: options.messages,
    stillFailing: {
      calls: calls.length,
      peakPerSecond: rateStats(calls, ONE_SECOND).peakPerSecond,
      backFromMs: Number.isFinite(backFromMs) ? backFromMs : 0,
      backUntilMs,
    },
  };
}

const count = (value: number) => value.toLocaleString('en-US');
const seconds = (ms: number) => formatDuration(Math.round(ms / 100) * 100);

export function replaySimulationText(report: ReplaySimulation): string {
  const { stillFailing: failing } = report;
  const lines = [
    `replaying ${count(report.messages)} dead letters of ${report.policy} on ${report.target} at ${report.ratePerSecond}/s with jitter (seed ${report.seed})`,
    `  the replay takes ${seconds(report.durationMs)}`,
    '',
    ...textTable([
      ['', `paced ${report.ratePerSecond}/s`, 'all at once'],
      [
        'calls in the busiest second, cause fixed',
        `${count(report.fixedPeakPerSecond)}/s`,
        `${count(report.unpacedPeakPerSecond)}/s`,
      ],
    ]),
    '',
    `  if the cause is not fixed: ${count(failing.calls)} calls (every attempt again), at most ${count(failing.peakPerSecond)} in one second;`,
    `  they are dead letters again ${seconds(failing.backFromMs)}–${seconds(failing.backUntilMs)} after the replay starts.`,
    '  Replay with `retry-topology dead-letters replay <file> --target <target> --rate <rate> --yes`.',
  ];
  return `${lines.join('\n')}\n`;
}

/** `simulate <file> --replay N --rate R [--seed N] [--target T] [--policy P] [--format text|json]`. */
export async function replaySimulationCommand(
  values: {
    replay?: string;
    rate?: string;
    seed?: string;
    format?: string;
    policy?: string;
    target?: string;
  },
  positionals: string[],
  output: Output,
): Promise<number> {
  const messages = Number(values.replay);
  const ratePerSecond = values.rate === undefined ? undefined : parseRate(values.rate);
  const seed = Number(values.seed ?? '1');
  const [file] = positionals;
  const problems = [
    positionals.length !== 1 || !file ? 'give exactly one policy file' : '',
    !Number.isSafeInteger(messages) || messages < 1 || messages > MAX_REPLAY
      ? `--replay needs a whole number from 1 to ${count(MAX_REPLAY)}`
      : '',
    !ratePerSecond ? '--rate needs a rate such as 50/s' : '',
    !Number.isSafeInteger(seed) ? '--seed needs an integer' : '',
    values.format !== undefined && values.format !== 'text' && values.format !== 'json'
      ? '--format with --replay is text or json'
      : '',
  ].filter(Boolean);
  if (problems.length > 0 || !file || !ratePerSecond) {
    output.err(problems.map((problem) => `✖ ${problem}`).join('\n'));
    return EXIT.usage;
  }
  const target = targetOption(values.target);
  const chosen = chooseOne(
    await loadInputs(positionals, output),
    file,
    { policy: values.policy, target },
    output,
  );
  if (typeof chosen === 'number') return chosen;
  const report = await simulateReplay(chosen.plan, chosen.target, { messages, ratePerSecond, seed });
  output.out(values.format === 'json' ? safeJson(report) : replaySimulationText(report));
  return EXIT.ok;
}

/** Each message is followed through every attempt; a million stays under a few seconds. */
const MAX_REPLAY = 1_000_000;
