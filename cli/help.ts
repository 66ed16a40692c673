import { EXIT } from './output';

/**
 * Each command's help, in one place: its synopsis and options (`usage`, in the command's file)
 * and its exit codes. `<command> --help` prints it, and docs/cli.md holds the same text, written
 * by `npm run docs:cli` (scripts/cli-docs.ts); a test checks that the two agree.
 */

/** An exit code of a command, and what it means there. */
export type ExitCode = readonly [code: number, meaning: string];

export interface CommandHelp {
  /** The synopsis (its lines up to the first blank one), then what the command does and its options. */
  usage: string;
  exits: readonly ExitCode[];
}

export const EXIT_LINE_WRONG: ExitCode = [
  EXIT.usage,
  'the command line is wrong: an unknown option or value (the message names it)',
];
export const EXIT_BUG: ExitCode = [EXIT.internal, 'a bug in retry-topology: please report it'];
/** What plan, render and simulate share: they work on policies without errors (select.ts). */
export const EXIT_POLICY_ERRORS: ExitCode = [
  EXIT.invalid,
  'a policy has errors (printed), or the input holds no policy',
];

/** What `<command> --help` prints. */
export function helpText(help: CommandHelp): string {
  const width = Math.max(...help.exits.map(([code]) => String(code).length));
  const exits = help.exits.map(([code, meaning]) => `  ${String(code).padStart(width)}  ${meaning}`);
  return `${help.usage}\n\nExit codes:\n${exits.join('\n')}`;
}

/** The command's synopsis lines. */
export function synopsisOf(help: CommandHelp): string[] {
  const lines = help.usage.split('\n');
  const blank = lines.indexOf('');
  return blank === -1 ? lines : lines.slice(0, blank);
}
