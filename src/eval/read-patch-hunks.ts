/** One change inside a hunk of a unified diff, placed by old line numbers. */
export interface PatchChange {
  /** First old line replaced (1-based); for an insertion (nothing removed), the old line it comes after (0: the top). */
  start: number;
  /** Last old line replaced; for an insertion, equal to `start`. */
  end: number;
  removed: string[];
  added: string[];
}

/** One hunk as written: its header's numbers and its lines, each with its mark (` ` context, `-` removed, `+` added). */
export interface PatchHunk {
  /** The header, `@@ -12,7 +12,8 @@`, to name the hunk by. */
  header: string;
  /** `-k,n`: the first old line (for n = 0, the line the hunk comes after) and the count of old lines. */
  oldStart: number;
  oldCount: number;
  /** `+k`: the first new line. */
  newStart: number;
  lines: { mark: " " | "-" | "+"; text: string }[];
  /** Its changes, by the header's old line numbers. */
  changes: PatchChange[];
}

/** The changes a unified diff makes to one file, under its old path (its new path for a created file). */
export interface PatchFile {
  path: string;
  /** Whether the diff creates the file (`--- /dev/null`). */
  created: boolean;
  /** Whether the diff deletes the file (`+++ /dev/null`). */
  deleted: boolean;
  /** Every hunk's changes, in order. */
  changes: PatchChange[];
  hunks: PatchHunk[];
}

/**
 * Reads a unified diff (git's, or one without `diff --git` headers) into its files and, per file, its changes: each
 * maximal run of `-`/`+` lines inside a hunk. Hunks are read by the line counts of their headers, so a removed line
 * that itself starts with `--` is never taken for a file header.
 */
export function readPatchHunks(patch: string): PatchFile[] {
  const files: PatchFile[] = [];
  const lines = patch.split("\n").map((line) => line.replace(/\r$/, ""));
  let file: PatchFile | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      const oldPath = pathOf(line);
      const newPath = pathOf(lines[i + 1]!);
      file = { path: oldPath ?? newPath ?? "", created: oldPath === null, deleted: newPath === null, changes: [], hunks: [] };
      files.push(file);
      i++;
      continue;
    }
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!header || !file) continue;
    const hunk: PatchHunk = {
      header: header[0],
      oldStart: Number(header[1]),
      oldCount: header[2] === undefined ? 1 : Number(header[2]),
      newStart: Number(header[3]),
      lines: [],
      changes: [],
    };
    i = readHunk(lines, i + 1, hunk, header[4] === undefined ? 1 : Number(header[4])) - 1;
    file.hunks.push(hunk);
    file.changes.push(...hunk.changes);
  }
  return files;
}

/** Reads the body of `hunk` from `lines[from]` (its lines and changes); returns the index of the first line after it. */
function readHunk(lines: string[], from: number, hunk: PatchHunk, newCount: number): number {
  const changes = hunk.changes;
  let oldLeft = hunk.oldCount;
  let newLeft = newCount;
  // `-k,0` is an empty old side placed after line k; otherwise the hunk starts at line k.
  let oldLine = oldLeft === 0 ? hunk.oldStart + 1 : hunk.oldStart;
  let change: PatchChange | null = null;
  let i = from;
  for (; i < lines.length && (oldLeft > 0 || newLeft > 0); i++) {
    const line = lines[i]!;
    const mark = line[0];
    if (mark === "\\") continue;
    if (mark === "-") {
      if (!change || change.removed.length === 0) change = { ...(change ?? { added: [] }), start: oldLine, end: oldLine, removed: [] };
      change.removed.push(line.slice(1));
      hunk.lines.push({ mark: "-", text: line.slice(1) });
      change.end = oldLine++;
      oldLeft--;
    } else if (mark === "+") {
      change ??= { start: oldLine - 1, end: oldLine - 1, removed: [], added: [] };
      change.added.push(line.slice(1));
      hunk.lines.push({ mark: "+", text: line.slice(1) });
      newLeft--;
    } else {
      // A context line (an empty line is one whose leading space was lost).
      if (change) changes.push(change);
      change = null;
      hunk.lines.push({ mark: " ", text: line.slice(1) });
      oldLine++;
      oldLeft--;
      newLeft--;
    }
  }
  while (lines[i]?.startsWith("\\")) i++;
  if (change) changes.push(change);
  return i;
}

/** The path of a `---`/`+++` line without its `a/`/`b/` prefix and timestamp, or null for /dev/null. */
function pathOf(line: string): string | null {
  const name = line.slice(4).split("\t")[0]!.trim();
  if (name === "/dev/null") return null;
  return name.replace(/^[ab]\//, "");
}
