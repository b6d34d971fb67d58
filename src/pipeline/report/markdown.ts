/** Text for one Markdown table cell: pipes escaped, line breaks kept as <br>. */
export function cell(text: string): string {
  return neutralize(text).replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>").trim();
}

// "Fixes #12", "closes octo/demo#3", "Resolves: #4": GitHub closes the named issue when a pull request whose body (or a
// commit whose message) says so is merged.
const CLOSING_REFERENCE = /\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)(\s*:?\s+)((?:[\w.-]+\/[\w.-]+)?#\d+)/gi;

/**
 * Model-written (or issue-written) prose for a Markdown block: tags that would close or open our collapsible sections
 * are shown as text, and an issue reference after a closing keyword is put in a code span, so that text the bot merely
 * quotes cannot close another issue when its pull request is merged.
 */
export function neutralize(text: string): string {
  return neutralizeClosingReferences(text.replace(/<(\/?)(details|summary)/gi, "&lt;$1$2"));
}

/** The text with every "closing keyword + issue reference" made inert (the reference in backticks). */
export function neutralizeClosingReferences(text: string): string {
  return text.replace(CLOSING_REFERENCE, "$1$2`$3`");
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
