// How the CLI's output looks to people at a terminal: colour where it is wanted, tables aligned.

const CODES = { red: 31, green: 32, yellow: 33, bold: 1, dim: 2 } as const;

/** ANSI colour for people at a terminal; plain text everywhere else (pipes, files, NO_COLOR). */
export function paint(text: string, style: keyof typeof CODES, color: boolean): string {
  return color ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
}

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
