import type { RetryPlan } from '../../policy';
import { safeJson } from '../../policy/printable';
import type { DeadLetters } from '../../runtime/dead-letters';
import { EXIT, type Output } from '../output';
import type { DeadLetterArgs } from './args';
import type { DeadLetterEnvironment } from './environment';
import { letterJson, listMarkdown, listText, purgeText, replayText, showText } from './format';
import { progressBar } from './progress';

const TARGET_TITLE = { rabbitmq: 'RabbitMQ', kafka: 'Kafka', serviceBus: 'Service Bus' } as const;

/** One verb on an open connection; returns the exit code. Failures throw DeadLetterError. */
export async function runVerb(
  args: DeadLetterArgs,
  plan: RetryPlan,
  commands: DeadLetters,
  output: Output,
  environment: DeadLetterEnvironment,
  signal: AbortSignal,
): Promise<number> {
  const now = environment.now();
  // safeJson: JSON.stringify leaves C1 controls and bidirectional overrides from a message raw.
  const json = (value: unknown) => output.out(safeJson(value));
  switch (args.verb) {
    case 'list': {
      const summary = await commands.list({ filter: args.filter, signal });
      const title = `dead letters of ${plan.policy} on ${TARGET_TITLE[args.target]}`;
      if (args.format === 'json') json(summary);
      else
        output.out(
          args.format === 'markdown' ? listMarkdown(summary, title, now) : listText(summary, title, now),
        );
      return EXIT.ok;
    }
    case 'show': {
      const letters = await commands.show({
        filter: args.filter,
        skip: args.skip,
        ...(args.limit === undefined ? {} : { limit: args.limit }),
        signal,
      });
      if (args.format === 'json') json(letters.map((letter) => letterJson(letter, args.previewBytes)));
      else output.out(showText(letters, args.previewBytes, now));
      return EXIT.ok;
    }
    case 'replay': {
      const bar =
        environment.terminal && args.yes
          ? progressBar(environment.terminal.write, environment.now, 'replaying')
          : undefined;
      try {
        const report = await commands.replay({
          filter: args.filter,
          ratePerSecond: args.ratePerSecond,
          keepAttempts: args.keepAttempts,
          dryRun: !args.yes,
          signal,
          ...(bar ? { onProgress: bar.update } : {}),
        });
        bar?.end();
        if (args.format === 'json') json(report);
        else output.out(replayText(report));
      } catch (error) {
        bar?.end();
        throw error;
      }
      return EXIT.ok;
    }
    case 'purge': {
      const report = await commands.purge({
        filter: args.filter,
        ...(args.expect === undefined ? {} : { expect: args.expect }),
        ...(args.archive === undefined ? {} : { archive: args.archive }),
        dryRun: !args.yes,
        signal,
      });
      if (args.format === 'json') json(report);
      else output.out(purgeText(report));
      return EXIT.ok;
    }
  }
}
