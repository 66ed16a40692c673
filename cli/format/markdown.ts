import { printable } from '../../policy/printable';

/**
 * Markdown that GitHub renders in a pull-request comment. Every value that comes from a policy
 * file or the command line (names, keys, error names, messages that quote them, file paths) is
 * written as an inline code span, the one construct in which nothing is markup: no link, no
 * HTML, no @mention that pings, no #123 or commit reference. The fence is one backtick longer
 * than the longest run inside, so a value with backticks cannot end it early; control characters
 * are escapes, so a value cannot start a new line; very long values are cut.
 */

/** Long enough for any real name or message; a 10,000-character key is not worth showing whole. */
const MAX_SHOWN = 300;

export function code(text: string, max = MAX_SHOWN): string {
  const points = [...printable(text)];
  const shown = points.length > max ? `${points.slice(0, max - 1).join('')}…` : points.join('');
  if (shown === '') return '*(empty)*';
  const longest = Math.max(0, ...(shown.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  // CommonMark strips one space from each end when both ends have one: pad when the text
  // begins or ends with a backtick or a space, so what shows is exactly the text.
  const pad = /^[` ]|[` ]$/.test(shown) ? ' ' : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}

/** A GitHub-flavoured Markdown table; a pipe in a cell (code spans included) is escaped, as GFM requires. */
export function markdownTable(header: readonly string[], rows: readonly string[][]): string[] {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    `| ${header.map(cell).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ];
}
