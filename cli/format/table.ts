import { printable } from '../../policy/printable';

/** Left-aligned columns separated by two spaces; cells are escaped (printable), so a row stays one line. */
export function textTable(input: readonly string[][], indent = '  '): string[] {
  const rows = input.map((row) => row.map((cell) => printable(cell)));
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
