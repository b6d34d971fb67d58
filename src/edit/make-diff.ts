import { formatPatch, OMIT_HEADERS, structuredPatch } from "diff";

/**
 * A git-style unified diff of one file (`diff --git a/p b/p`, `--- a/p`, `+++ b/p`, hunks) that
 * `git apply` accepts; `null` stands for a file that does not exist (new or deleted file).
 * Returns "" when nothing changed. Line endings are kept byte for byte (CRLF files stay CRLF).
 */
export function makeDiff(path: string, before: string | null, after: string | null): string {
  if (before === after) return "";
  const a = quotePath(`a/${path}`);
  const b = quotePath(`b/${path}`);
  const header = [`diff --git ${a} ${b}`];
  if (before === null) header.push("new file mode 100644");
  if (after === null) header.push("deleted file mode 100644");
  const patch = structuredPatch(path, path, before ?? "", after ?? "", undefined, undefined, { context: 3 });
  // An empty file created or deleted has no hunks, and git wants no ---/+++ lines then.
  if (patch.hunks.length === 0) return header.join("\n") + "\n";
  header.push(`--- ${before === null ? "/dev/null" : a}`, `+++ ${after === null ? "/dev/null" : b}`);
  const hunks = formatPatch(patch, OMIT_HEADERS);
  return `${header.join("\n")}\n${hunks.endsWith("\n") ? hunks : hunks + "\n"}`;
}

/** Quote a path the way git does when it holds a quote, a backslash or a control character. */
function quotePath(path: string): string {
  /* eslint-disable no-control-regex -- control characters are what git quotes */
  if (!/["\\\u0000-\u001f\u007f]/.test(path)) return path;
  const escaped = path.replace(/["\\\u0000-\u001f\u007f]/g, (c) => {
    /* eslint-enable no-control-regex */
    const named: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
    return named[c] ?? `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`;
  });
  return `"${escaped}"`;
}
