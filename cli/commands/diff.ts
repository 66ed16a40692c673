import { parseArgs } from 'node:util';
import { compareSides } from '../diff/compare';
import { GitSourceError } from '../diff/git';
import { diffMarkdown } from '../diff/markdown';
import { loadSide, type Side } from '../diff/sources';
import { EXIT, type Output } from '../output';

export const DIFF_USAGE = `retry-topology diff <old> <new>

  Compares two sets of policies and prints Markdown for a pull-request comment: policies added,
  removed or changed; each changed policy's attempt timeline before and after; maxAttempts,
  retry window, amplification and dead letter; new and resolved findings; and every broker
  resource change, flagged by risk (safe, caution, data loss).
  Each side is a file, a directory, or git:<rev>:<path> (read with git; the path is from the
  repository root). Exits 1 when <new> has errors that <old> did not.`;

export async function diffCommand(args: string[], output: Output): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [oldSpec, newSpec] = positionals;
  if (positionals.length !== 2 || !oldSpec || !newSpec) {
    output.err(DIFF_USAGE);
    return EXIT.usage;
  }
  let sides: [Side, Side];
  try {
    sides = [await loadSide(oldSpec), await loadSide(newSpec)];
  } catch (error) {
    if (error instanceof GitSourceError) {
      output.err(`✖ ${error.message}`);
      return EXIT.usage;
    }
    throw error;
  }
  const comparison = compareSides(...sides);
  output.out(diffMarkdown(...sides, comparison));
  if (comparison.newErrors > 0) {
    output.err(`✖ ${comparison.newErrors} new error${comparison.newErrors === 1 ? '' : 's'} in ${newSpec}`);
    return EXIT.invalid;
  }
  return EXIT.ok;
}
