/** Text for one Markdown table cell: pipes escaped, line breaks kept as <br>. */
export function cell(text: string): string {
  return neutralize(text).replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>").trim();
}

/** Model-written prose for a Markdown block: tags that would close or open our collapsible sections are shown as text. */
export function neutralize(text: string): string {
  return text.replace(/<(\/?)(details|summary)/gi, "&lt;$1$2");
}

/** A fenced code block whose fence is longer than any backtick run inside the content. */
export function fence(content: string, language = ""): string {
  const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = "`".repeat(Math.max(3, longest + 1));
  return `${ticks}${language}\n${content.trimEnd()}\n${ticks}`;
}

/** A collapsible section; GitHub needs the blank line after the summary to render the body as Markdown. */
export function details(summary: string, body: string, open = false): string {
  return `<details${open ? " open" : ""}>\n<summary>${summary}</summary>\n\n${body.trim()}\n\n</details>`;
}

/** A Markdown table from a header and rows of already-escaped cells. */
export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
