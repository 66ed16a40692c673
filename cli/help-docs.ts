import type { CommandHelp } from './help';
import { helpText, synopsisOf } from './help';

/**
 * The parts of README.md and docs/cli.md written from the commands' own help (help.ts), between
 * `<!-- cli:NAME -->` and `<!-- /cli:NAME -->`: `npm run docs:cli` writes them, and a test
 * checks they are as written.
 */

const LAST_LINE = 'retry-topology --help | <command> --help | --version (-v)';

/** The synopsis of every command, as one shell block. */
export function synopsisBlock(helps: ReadonlyArray<[string, CommandHelp]>): string {
  const lines = helps.flatMap(([, help]) => synopsisOf(help));
  return ['```sh', ...lines, LAST_LINE, '```'].join('\n');
}

/** Every command's `--help`, word for word, each under its own heading. */
export function helpSection(helps: ReadonlyArray<[string, CommandHelp]>): string {
  return helps
    .map(([name, help]) => [`### \`${name} --help\``, '', '```text', helpText(help), '```'].join('\n'))
    .join('\n\n');
}

/** `text` with the part between the markers of `name` replaced by `content`. */
export function between(text: string, name: string, content: string, file: string): string {
  const open = `<!-- cli:${name} -->`;
  const close = `<!-- /cli:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end < start) throw new Error(`${file} has no ${open} … ${close}`);
  return `${text.slice(0, start + open.length)}\n${content}\n${text.slice(end)}`;
}

/** README.md and docs/cli.md as they should read. */
export function writtenDocs(
  helps: ReadonlyArray<[string, CommandHelp]>,
  current: { readme: string; cli: string },
): { readme: string; cli: string } {
  const synopsis = synopsisBlock(helps);
  return {
    readme: between(current.readme, 'synopsis', synopsis, 'README.md'),
    cli: between(
      between(current.cli, 'synopsis', synopsis, 'docs/cli.md'),
      'help',
      helpSection(helps),
      'docs/cli.md',
    ),
  };
}
