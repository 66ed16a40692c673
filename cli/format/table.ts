/** Left-aligned columns separated by two spaces. */
export function textTable(rows: readonly string[][], indent = '  '): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, [...cell].length);
    });
  }
  return rows.map((row) =>
    (
      indent +
      row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0))).join('  ')
    ).trimEnd(),
  );
}

/** A GitHub-flavoured Markdown table; pipes in cells are escaped. */
export function markdownTable(header: readonly string[], rows: readonly string[][]): string[] {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    `| ${header.map(cell).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ];
}
