import { structuredPatch } from "diff";

/**
 * The 1-based lines a change from `before` to `after` touches, on one side: on the `old` side the lines it removes or
 * rewrites (numbered in `before`), on the `new` side the lines it adds or rewrites (numbered in `after`).
 */
export function changedLines(before: string, after: string, side: "old" | "new"): Set<number> {
  const [mine, theirs] = side === "old" ? ["-", "+"] : ["+", "-"];
  const lines = new Set<number>();
  for (const hunk of structuredPatch("a", "b", before, after, "", "", { context: 0 }).hunks) {
    let line = side === "old" ? hunk.oldStart : hunk.newStart;
    for (const text of hunk.lines) {
      if (text.startsWith(mine)) lines.add(line++);
      else if (!text.startsWith(theirs)) line++;
    }
  }
  return lines;
}
