const CODES = { red: 31, green: 32, yellow: 33, bold: 1, dim: 2 } as const;

/** ANSI colour for people at a terminal; plain text everywhere else (pipes, files, NO_COLOR). */
export function paint(text: string, style: keyof typeof CODES, color: boolean): string {
  return color ? `\u001b[${CODES[style]}m${text}\u001b[0m` : text;
}
