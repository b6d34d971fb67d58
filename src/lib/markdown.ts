/** Text for one Markdown table cell: pipes escaped, line breaks kept as <br>. */
export function cell(text: string): string {
  return neutralize(text).replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>").trim();
}

/**
 * Text for a code span inside a table cell (a path, a model name): pipes escaped, line breaks made spaces,
 * nothing else changed; GitHub reads neither mentions nor closing keywords inside a code span.
 */
export function codeCell(text: string): string {
  // Each line break with the blank space around it (blank lines too) becomes one space. Split, not a /\s*\n\s*/
  // pattern, which tried every start in a long run of spaces without a line break (quadratic).
  const lines = text.replace(/\|/g, "\\|").split("\n");
  const inner = lines
    .slice(1, -1)
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const joined = lines.length === 1 ? lines[0]! : [lines[0]!.trimEnd(), ...inner, lines.at(-1)!.trimStart()].join(" ");
  return joined.trim();
}

/** A name (a test's, a check's) as a one-line code span it cannot break out of: its backticks become quotes. */
export function codeSpan(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/\r?\n/g, " ")}\``;
}

// "Fixes #12", "closes octo/demo#3", "Resolves: #4": GitHub closes the named issue when a pull request whose body (or a
// commit whose message) says so is merged.
const CLOSING_REFERENCE = /\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)(\s*:?\s+)((?:[\w.-]+\/[\w.-]+)?#\d+)/gi;

/**
 * Model-written (or issue-written) prose for a Markdown block: tags that would close or open our collapsible sections
 * are shown as text, an issue reference after a closing keyword is put in a code span, so that text the bot merely
 * quotes cannot close another issue when its pull request is merged, and @mentions cannot notify anyone.
 */
export function neutralize(text: string): string {
  return neutralizeMentions(neutralizeClosingReferences(text.replace(/<(\/?)(details|summary)/gi, "&lt;$1$2")));
}

// "@octocat", "@octo-org/reviewers", also spelled with an entity ("&#64;octocat"): GitHub notifies that user or team.
// Not after a word character (e-mail addresses).
const MENTION = /(^|[^\w])(?:@|&#0*64;|&#x0*40;|&commat;)([a-z\d](?:[a-z\d-]{0,38})(?:\/[a-z\d][\w-]*)?)/gi;
// Inline text GitHub reads no mention in, or where a zero-width space would break a link: code spans (which do not
// cross a blank line), autolinks, link targets and bare URLs (https://medium.com/@alice/post).
// Linear on any text: a URL's scheme is looked for only where a run of scheme characters begins, and a link target
// stops at a parenthesis (tried at every word start of "sk-sk-…", or at every "](" of "](](…", the rest of the run
// was scanned each time). A target with parentheses inside is still inert, as the bare URL it holds.
const INERT = /(`+)(?:(?!\n[ \t]*\n)[\s\S])*?\1|<[a-z][a-z\d+.-]*:[^\s<>]*>|\]\([^()\s]*\)|(?<![a-z\d+.-])[a-z][a-z\d+.-]*:\/\/[^\s<>)]+/gi;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

function neutralizeProse(text: string): string {
  let out = "";
  let from = 0;
  for (const span of text.matchAll(INERT)) {
    out += text.slice(from, span.index).replace(MENTION, "$1@&#8203;$2") + span[0];
    from = span.index + span[0].length;
  }
  return out + text.slice(from).replace(MENTION, "$1@&#8203;$2");
}

/**
 * The text with every @mention made inert by a zero-width space after the "@" (written as an HTML entity, so the
 * text still reads "@octocat"): the bot posts what models and issue authors wrote, and must not page the people and
 * teams it names. Fenced code (``` or ~~~, to its closing fence or the end), code spans and links are left as they
 * are; GitHub reads no mentions there.
 */
export function neutralizeMentions(text: string): string {
  const out: string[] = [];
  let prose: string[] = [];
  let fence: string | null = null;
  for (const line of text.split("\n")) {
    if (fence !== null) {
      out.push(line);
      const close = FENCE.exec(line);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length && line.trim() === close[1]) fence = null;
      continue;
    }
    const open = FENCE.exec(line);
    if (!open) {
      prose.push(line);
      continue;
    }
    if (prose.length > 0) out.push(neutralizeProse(prose.join("\n")));
    prose = [];
    out.push(line);
    fence = open[1]!;
  }
  if (prose.length > 0) out.push(neutralizeProse(prose.join("\n")));
  return out.join("\n");
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
