import { formatCount } from "./format.js";
import { showText } from "./show-text.js";

/** How much of one diff the page shows: a 5 MB patch is cut, with a note, rather than shipped whole to the browser. */
export const DIFF_LIMITS = { maxChars: 200_000, maxLines: 4000 };

/** A unified diff with its file headers, hunk headers, added and removed lines marked; cut at DIFF_LIMITS with a note. */
export function renderDiff(diff: string): string {
  if (diff === "") return `<p class="meta">No change.</p>`;
  const head = diff.length > DIFF_LIMITS.maxChars ? diff.slice(0, DIFF_LIMITS.maxChars) : diff;
  const lines = head.replace(/\n$/, "").split("\n");
  // A line the character bound cut in two is left out, unless it is the only one.
  if (head.length < diff.length && !head.endsWith("\n") && lines.length > 1) lines.pop();
  const shown = lines.slice(0, DIFF_LIMITS.maxLines);
  const rows = shown.map((line) => `<span class="${lineKind(line)}">${showText(line) || " "}</span>`).join("");
  const total = diff.split("\n").length - (diff.endsWith("\n") ? 1 : 0);
  const shownChars = shown.reduce((sum, line) => sum + line.length + 1, 0);
  const cut =
    shownChars < diff.length
      ? `<p class="cut">The diff has ${formatCount(total)} lines (${formatCount(diff.length)} characters); ` +
        `the first ${formatCount(shown.length)} lines (${formatCount(Math.min(shownChars, head.length))} characters) are shown.</p>`
      : "";
  return `<pre class="diff">${rows}</pre>${cut}`;
}

function lineKind(line: string): string {
  if (line.startsWith("+++ ") || line.startsWith("--- ") || line.startsWith("diff ") || line.startsWith("index ")) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "ctx";
}
