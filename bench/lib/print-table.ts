/** Prints rows as a table on the console: the first row is the header, every column right-aligned to its widest cell. */
export function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  for (const [index, row] of rows.entries()) {
    console.log(row.map((cell, i) => cell.padStart(widths[i]!)).join("  "));
    if (index === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
  }
}
