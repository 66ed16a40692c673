import { formatDuration, parseDuration } from '../../policy';
import { safeJson } from '../../policy/printable';
import { parseCommandArgs, UsageError } from '../args';
import { replaySimulationCommand } from '../dead-letters/simulate-replay';
import { type CommandHelp, EXIT_BUG, EXIT_POLICY_ERRORS } from '../help';
import { loadInputs } from '../load-inputs';
import { EXIT, type Output } from '../output';
import { chooseOne, targetOption } from '../select';
import { simulationSvg } from '../simulate/chart';
import { parseRate } from '../simulate/rate';
import { runSimulation } from '../simulate/run';
import { rate, simulationText } from '../simulate/text';

export const SIMULATE_HELP: CommandHelp = {
  usage: `retry-topology simulate <file|dir|glob|-> --outage <duration> --rate <n/s> [--seed N] [--backlog N] [--format text|json|svg] [--policy <name>] [--target rabbitmq|kafka|servicebus] [--bucket <duration>]
retry-topology simulate <file|-> --replay <N> --rate <n/s> [--seed N] [--format text|json] [--policy <name>] [--target rabbitmq|kafka|servicebus]

  What a dependency sees when it comes back from an outage: messages arrive at --rate while it
  is down, every call fails, and the policy's retries (the runtime's own decide() and drawWait,
  seeded by --seed) bring them back. Compares the policy's jitter with none (or, when the policy
  has none, with full jitter): peak retry rate, peak/mean, seconds until the backlog clears, and
  messages dead-lettered during the outage. --backlog adds messages already waiting when the
  outage began: a burst that fails together. Without --target the first target is used.
  --replay N: what replaying N dead letters at --rate does (dead-letters replay's own pacing):
  how long it takes, the busiest second with and without the rate, and, if the cause is not
  fixed, every attempt again and when they are dead letters again.`,
  exits: [
    [EXIT.ok, 'the simulation is printed'],
    EXIT_POLICY_ERRORS,
    [
      EXIT.usage,
      'the command line is wrong, the input holds several policies and no --policy picks one, or the policy lacks the --target',
    ],
    EXIT_BUG,
  ],
};

const FORMATS = ['text', 'json', 'svg'] as const;
/** Beyond this a run takes seconds; a smaller rate shows the same shape. */
const MAX_MESSAGES = 5_000_000;

export async function simulateCommand(args: string[], output: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    outage: { type: 'string' },
    rate: { type: 'string' },
    seed: { type: 'string', default: '1' },
    backlog: { type: 'string', default: '0' },
    bucket: { type: 'string' },
    format: { type: 'string', default: 'text' },
    policy: { type: 'string' },
    target: { type: 'string' },
    replay: { type: 'string' },
  });
  if (values.replay !== undefined) return replaySimulationCommand(values, positionals, output);
  const format = FORMATS.find((name) => name === values.format);
  const outageMs = values.outage === undefined ? undefined : parseDuration(values.outage);
  const ratePerSecond = values.rate === undefined ? undefined : parseRate(values.rate);
  const seed = Number(values.seed);
  const backlog = Number(values.backlog);
  const bucketMs = values.bucket === undefined ? undefined : parseDuration(values.bucket);
  const [file] = positionals;
  const problems = [
    positionals.length !== 1 || !file ? 'give exactly one policy file' : '',
    !format ? `--format must be one of ${FORMATS.join(', ')}` : '',
    !outageMs ? '--outage needs a duration such as 10m' : '',
    !ratePerSecond ? '--rate needs a rate such as 100/s' : '',
    !Number.isSafeInteger(seed) ? '--seed needs an integer' : '',
    !Number.isSafeInteger(backlog) || backlog < 0 ? '--backlog needs a whole number' : '',
    values.bucket !== undefined && !bucketMs ? '--bucket needs a duration such as 1s' : '',
  ].filter(Boolean);
  if (problems.length > 0 || !file || !format || !outageMs || !ratePerSecond) {
    output.err(`${problems.map((problem) => `✖ ${problem}`).join('\n')}\n\n${SIMULATE_HELP.usage}`);
    return EXIT.usage;
  }
  const arriving = (ratePerSecond * outageMs) / 1_000;
  if (Math.round(arriving) + backlog === 0)
    throw new UsageError(
      `at ${rate(ratePerSecond)} no message arrives during a ${formatDuration(outageMs)} outage (${arriving.toPrecision(2)} expected); raise --rate or --outage, or add --backlog`,
    );
  if (arriving + backlog > MAX_MESSAGES)
    throw new UsageError(
      `that is over ${MAX_MESSAGES.toLocaleString('en-US')} messages; lower --rate or --outage (the shape scales)`,
    );
  const target = targetOption(values.target);
  const chosen = chooseOne(
    await loadInputs(positionals, output),
    file,
    { policy: values.policy, target },
    output,
  );
  if (typeof chosen === 'number') return chosen;
  const report = runSimulation(chosen.plan, chosen.target, {
    outageMs,
    ratePerSecond,
    backlog,
    seed,
    ...(bucketMs ? { bucketMs } : {}),
  });
  if (format === 'json') output.out(safeJson(report));
  else if (format === 'svg') output.out(simulationSvg(report));
  else output.out(simulationText(report));
  return EXIT.ok;
}
