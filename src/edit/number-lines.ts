import { splitFile } from "./split-text.js";

/** The numbered view a Developer reads: `  12 | code`, numbers right-aligned, line endings dropped. */
export function numberLines(text: string): string {
  const { lines } = splitFile(text);
  const width = String(lines.length).length;
  return lines.map((line, i) => `${String(i + 1).padStart(width)} |${line === "" ? "" : " " + line}`).join("\n");
}
