/** Rows of cells as aligned columns for a terminal, two spaces apart; `right` columns are right-aligned. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], right: readonly number[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (cells: readonly string[]) =>
    cells
      .map((c, i) => (right.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[format(header), ...rows.map(format)].join('\n')}\n`;
}
