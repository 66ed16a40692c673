import type { RetryPlan } from '../../policy';
import { safeJson } from '../../policy/printable';
import {
  checkPurgeOptions,
  checkReplayOptions,
  DeadLetterError,
  type DeadLetterErrorCode,
  keepAttemptsUnsupported,
  requireDeadLetters,
} from '../../runtime/dead-letters';
import { UsageError } from '../args';
import { type DeadLetterArgs, parseDeadLetterArgs } from '../dead-letters/args';
import { type DeadLetterEnvironment, processEnvironment } from '../dead-letters/environment';
import { purgeText, replayText } from '../dead-letters/format';
import { loadPlan } from '../dead-letters/plan-input';
import { safeText } from '../dead-letters/safe-text';
import { runVerb } from '../dead-letters/verbs';
import { type CommandHelp, EXIT_BUG } from '../help';
import { EXIT, type Output } from '../output';

/** Exit codes beyond the shared ones: 4 the broker failed or was unreachable, 130 stopped by Ctrl-C. */
export const DEAD_LETTER_EXIT = { ...EXIT, refused: 1, broker: 4, stopped: 130 } as const;

export const DEAD_LETTERS_HELP: CommandHelp = {
  usage: `retry-topology dead-letters list|show|replay|purge <policy.yaml|plan.json|-> --target rabbitmq|kafka|servicebus [options]

  The dead letters of one policy on one broker. The file is the policy, or its plan as JSON (the
  stack's planJson output; - reads stdin); --policy picks one when it holds several.
  list     counts by reason, error, source and age, oldest and newest    [--format text|json|markdown]
  show     the messages: headers, dead-letter facts, a safe body preview [--limit N] [--skip N] [--preview BYTES] [--format text|json]
  replay   back to where they came from, each removed only once its copy is confirmed; paced with
           jitter, never more than --rate in any one second; the attempt count starts again
           [--rate 50/s] [--keep-attempts] [--yes]   (without --yes: a dry run)
  purge    delete them: --yes --expect N [--archive file.jsonl]   (without --yes: a dry run)
  filters  --reason permanent|exhausted|broker-rejected|unknown  --error <ErrorName>  --id <id>
           --since <time>  --until <time> (ISO time, or a duration ago: 2h)  --max N
  connect  RabbitMQ --url or RABBITMQ_URL; Kafka --brokers or KAFKA_BROKERS (--ssl, KAFKA_SASL_*);
           Service Bus --connection-string or SERVICEBUS_CONNECTION_STRING. Never from the policy.
  A replay or purge stopped at any point (Ctrl-C, a crash) loses nothing: run it again to go on.`,
  exits: [
    [EXIT.ok, 'done, or a dry run printed what it would do'],
    [
      DEAD_LETTER_EXIT.refused,
      'a purge was refused: --expect is not the count, or the --archive file exists',
    ],
    [
      EXIT.usage,
      'the command line is wrong (a filter, an option, a purge without --expect), or the file is no valid policy or plan, or has no such target',
    ],
    EXIT_BUG,
    [DEAD_LETTER_EXIT.broker, 'the broker was unreachable or failed, or the archive could not be written'],
    [DEAD_LETTER_EXIT.stopped, 'stopped by Ctrl-C (run it again to go on)'],
  ],
};

const EXIT_BY_CODE: Record<DeadLetterErrorCode, number> = {
  'no-target': EXIT.usage,
  'no-dead-letters': EXIT.usage,
  'invalid-plan': EXIT.usage,
  'invalid-filter': EXIT.usage,
  'invalid-option': EXIT.usage,
  'expect-required': EXIT.usage,
  'archive-invalid': EXIT.usage,
  'expect-mismatch': DEAD_LETTER_EXIT.refused,
  'archive-exists': DEAD_LETTER_EXIT.refused,
  'broker-unreachable': DEAD_LETTER_EXIT.broker,
  'broker-failed': DEAD_LETTER_EXIT.broker,
  'archive-failed': DEAD_LETTER_EXIT.broker,
  'progress-full': DEAD_LETTER_EXIT.broker,
};

function stopOnSignals(controller: AbortController): () => void {
  const onSignal = () => {
    if (controller.signal.aborted) process.exit(DEAD_LETTER_EXIT.stopped);
    controller.abort(new Error('stopped by a signal'));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/**
 * A coded line for a mistake in the command line (a UsageError, exit 2) or a failure of the
 * command (a DeadLetterError, whose code says the exit), and what a replay or purge had done.
 */
function printFailure(
  error: DeadLetterError | UsageError,
  args: DeadLetterArgs | undefined,
  output: Output,
): number {
  output.err(`✖ [${error.code}] ${safeText(error.message)}`);
  if (error instanceof UsageError) return EXIT.usage;
  const report = error.report;
  if (report && args) {
    if (args.format === 'json')
      output.out(safeJson({ ...report, error: { code: error.code, message: error.message } }));
    else output.err('purged' in report ? purgeText(report) : replayText(report));
  }
  return EXIT_BY_CODE[error.code];
}

/**
 * The checks the verb itself would make of its options, made before connecting: a mistake on the
 * command line is said at once, never after a wait for a broker that may not answer (or blamed on
 * a missing URL).
 */
function checkBeforeConnecting(args: DeadLetterArgs, plan: RetryPlan): void {
  if (args.verb === 'purge')
    checkPurgeOptions({ dryRun: !args.yes, ...(args.expect === undefined ? {} : { expect: args.expect }) });
  if (args.verb === 'replay')
    checkReplayOptions(
      { ratePerSecond: args.ratePerSecond, keepAttempts: args.keepAttempts },
      keepAttemptsUnsupported(plan, args.target),
    );
}

export async function deadLettersCommand(
  argv: string[],
  output: Output,
  environment: DeadLetterEnvironment = processEnvironment(),
): Promise<number> {
  let args: DeadLetterArgs | undefined;
  const controller = new AbortController();
  let release = () => {};
  try {
    args = parseDeadLetterArgs(argv, environment.env, environment.now());
    const plan = await loadPlan(args.input, args.policy, output);
    if (!plan) return EXIT.invalid;
    requireDeadLetters(plan, args.target);
    checkBeforeConnecting(args, plan);
    const opened = await environment.connectors[args.target](plan, args.connection, (message) =>
      output.err(`⚠ ${safeText(message)}`),
    );
    if (environment.handleSignals) release = stopOnSignals(controller);
    try {
      const code = await runVerb(args, plan, opened.commands, output, environment, controller.signal);
      return controller.signal.aborted && code === EXIT.ok ? DEAD_LETTER_EXIT.stopped : code;
    } finally {
      await opened.close();
    }
  } catch (error) {
    // Here, not in run(): dead-letters shows the code of every failure, a usage error's included.
    if (error instanceof UsageError || error instanceof DeadLetterError) {
      const code = printFailure(error, args, output);
      if (code === EXIT.usage && !args) output.err(`\n${DEAD_LETTERS_HELP.usage}`);
      return code;
    }
    throw error;
  } finally {
    release();
  }
}
