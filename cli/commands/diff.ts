import { writeFile } from 'node:fs/promises';
import { parseCommandArgs, UsageError, wholeNumber } from '../args';
import { compareSides } from '../diff/compare';
import { GitSourceError } from '../diff/git';
import { DEFAULT_MAX_CHARS, diffMarkdown } from '../diff/markdown';
import { loadSide, type Side } from '../diff/sources';
import { type CommandHelp, EXIT_BUG } from '../help';
import { EXIT, type Output, printIssues } from '../output';

export const DIFF_HELP: CommandHelp = {
  usage: `retry-topology diff <old> <new> [--full-report <file>] [--max-chars N] [--allow-missing-old]

  Compares two sets of policies and prints Markdown for a pull-request comment: policies added,
  removed or changed; each changed policy's attempt timeline before and after; maxAttempts,
  retry window, amplification and dead letter; new and resolved findings; and every broker
  resource change, flagged by risk (safe, caution, data loss).
  Each side is a file, a directory, a glob, - (standard input) or git:<rev>:<path> (read with
  git; the path is from the repository root). Everything from a policy is shown as code, never
  as markup. The comment stays under --max-chars (default 60000; GitHub's limit is 65536): a
  table of every changed policy first, then folded details and findings as they fit, and one
  line counting what was left out. --full-report writes the whole diff, uncut, to a file.
  --allow-missing-old: a git <old> whose path is missing is an empty side, every policy new (the
  pull request that adds the first policies). Only a git side: a missing file or directory is
  never an empty side.`,
  exits: [
    [EXIT.ok, 'the diff is printed, and <new> brings no new errors'],
    [
      EXIT.invalid,
      '<new> has errors that <old> did not, or a side cannot be read (a missing file or directory)',
    ],
    [
      EXIT.usage,
      "the command line is wrong, a git side's revision is unknown, or its path is missing (without --allow-missing-old)",
    ],
    EXIT_BUG,
  ],
};

export async function diffCommand(args: string[], output: Output): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, {
    'full-report': { type: 'string' },
    'max-chars': { type: 'string' },
    'allow-missing-old': { type: 'boolean', default: false },
  });
  const maxChars =
    values['max-chars'] === undefined
      ? DEFAULT_MAX_CHARS
      : wholeNumber('max-chars', values['max-chars'], 2_000);
  if (positionals.length !== 2)
    throw new UsageError(`diff compares two sides, <old> and <new>; got ${positionals.length}`);
  const [oldSpec = '', newSpec = ''] = positionals;
  const fullReport = values['full-report'];
  let sides: [Side, Side];
  try {
    sides = [
      await loadSide(oldSpec, output, {
        allowMissing: values['allow-missing-old'],
        missingHint: 'if it is the base of the change that adds the first policies, pass --allow-missing-old',
      }),
      await loadSide(newSpec, output),
    ];
  } catch (error) {
    if (error instanceof GitSourceError) {
      output.err(`✖ ${error.message}`);
      return EXIT.usage;
    }
    throw error;
  }
  // A side that cannot be read is not an empty side: compared as one, every policy would show as
  // added (or removed) and safe, and the diff would pass. Exit 1, as validate and plan do for a
  // file they cannot read, with the loader's coded finding, and no comment to post.
  const unreadable = sides.filter((side) => side.issues.some((found) => found.code === 'file-unreadable'));
  if (unreadable.length > 0) {
    printIssues(
      output,
      unreadable.flatMap((side) => side.issues.filter((found) => found.code === 'file-unreadable')),
    );
    const specs = [...new Set(unreadable.map((side) => side.spec))];
    output.err(`✖ cannot diff: ${specs.join(' and ')} cannot be read`);
    return EXIT.invalid;
  }
  const comparison = compareSides(...sides);
  if (fullReport !== undefined) {
    try {
      await writeFile(fullReport, diffMarkdown(...sides, comparison));
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      output.err(`✖ cannot write the full report to ${fullReport} (${reason})`);
      return EXIT.usage;
    }
  }
  output.out(diffMarkdown(...sides, comparison, { maxChars, ...(fullReport ? { fullReport } : {}) }));
  if (comparison.newErrors > 0) {
    output.err(`✖ ${comparison.newErrors} new error${comparison.newErrors === 1 ? '' : 's'} in ${newSpec}`);
    return EXIT.invalid;
  }
  return EXIT.ok;
}
