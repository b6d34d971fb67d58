import { describeSpan } from "./describe-place.js";
import { SearchableFile } from "./find-block.js";
import { resolveEdit, type ResolvedEdit } from "./resolve-edit.js";
import { joinFile, splitFile } from "./split-text.js";
import type { ApplyResult, Edit } from "./types.js";

export type { ApplyResult, Edit, EditPlacement, RangeEdit, SearchReplaceEdit } from "./types.js";

/**
 * Apply a Developer's edits to one file's text (pure). Every edit is anchored in the original text,
 * placed by its `old`/`search` text rather than trusted line numbers, and must not overlap another;
 * the file's line endings and final newline are kept. `text` is decoded without its byte-order mark
 * (see decodeFile). A failure is a message meant for the model.
 */
export function applyEdits(text: string, edits: Edit[]): ApplyResult {
  if (edits.length === 0) return { ok: false, error: "No edits were given; send at least one edit, or say that the file needs no change." };
  const file = splitFile(text);
  const searchable = new SearchableFile(file.lines);
  const resolved: ResolvedEdit[] = [];
  const errors: string[] = [];
  edits.forEach((edit, k) => {
    const result = resolveEdit(searchable, file.eols, edit, k + 1);
    if ("error" in result) errors.push(result.error);
    else resolved.push(result);
  });
  if (errors.length > 0) return { ok: false, error: errors.join("\n\n") };
  // Stable sort: insertions at the same point keep the order they were given in.
  const ordered = [...resolved].sort((a, b) => a.span.start - b.span.start || a.span.end - b.span.end);
  for (let k = 1; k < ordered.length; k++) {
    const [before, after] = [ordered[k - 1]!, ordered[k]!];
    if (after.span.start < before.span.end) {
      return {
        ok: false,
        error:
          `${before.label} and ${after.label} overlap: they were placed at ${describeSpan(before.span)} and ` +
          `${describeSpan(after.span)}. A line may be changed by one edit only; merge them into one edit.`,
      };
    }
  }
  const lines = [...file.lines];
  const eols: (string | undefined)[] = [...file.eols];
  for (const edit of [...ordered].reverse()) {
    lines.splice(edit.span.start, edit.span.end - edit.span.start, ...edit.lines);
    eols.splice(edit.span.start, edit.span.end - edit.span.start, ...edit.eols);
  }
  const placements = resolved.map((r) => r.placement);
  return {
    ok: true,
    text: joinFile(
      lines,
      eols.map((eol) => eol || undefined),
      file,
    ),
    placements,
  };
}
