import fs from "node:fs";
import path from "node:path";
import { decodeFile } from "../../edit/file-encoding.js";
import { splitFile } from "../../edit/split-text.js";
import { readPatchHunks, type PatchChange, type PatchFile, type PatchHunk } from "../read-patch-hunks.js";
import type { HunkOffset } from "../types.js";

/** The gold patch placed on the base files: each file's changes where `git apply` puts them. */
export interface PlacedGold {
  files: PatchFile[];
  /** The hunks found away from their headers' lines. */
  offsets: HunkOffset[];
  /** Per gold file whose hunks cannot be placed, why, naming the hunk. */
  refused: Map<string, string>;
}

type Placement = { file: PatchFile; offsets: HunkOffset[] } | { refused: string };

/**
 * The gold patch with its hunks placed as `git apply` places them on the files of `checkout` (the base commit), the
 * lines read as the pipeline reads them (UTF-8, else Latin-1). A created file, or one without a checkout, keeps its
 * header's lines.
 */
export function placeGoldPatch(patch: string, checkout: string | null): PlacedGold {
  const placed: PlacedGold = { files: [], offsets: [], refused: new Map() };
  for (const file of readPatchHunks(patch)) {
    const base = checkout && !file.created ? path.join(checkout, file.path) : null;
    const placement: Placement = !base
      ? { file, offsets: [] }
      : fs.existsSync(base)
        ? placeGoldHunks(file, splitFile(decodeFile(fs.readFileSync(base)).text).lines)
        : { refused: `${file.path} is not in the base commit, which the gold patch changes` };
    if ("refused" in placement) {
      placed.refused.set(file.path, placement.refused);
      placed.files.push(file);
    } else {
      placed.files.push(placement.file);
      placed.offsets.push(...placement.offsets);
    }
  }
  return placed;
}

/** A line of the file as the hunks are applied: its text, and its line in the base file (null for a line a hunk added). */
interface ImageLine {
  text: string;
  old: number | null;
}

/**
 * Places each hunk of a gold file where `git apply` does, on the base file's lines: the hunks are applied in order,
 * each looked for first at its header's new line and then outward, one line after and one before alternately, as
 * its context and removed lines exactly; a hunk whose old side starts at line 1 (or 0) must match at the top, one
 * without trailing context at the end. Gold patches made on a slightly different tree then land where git lands them.
 * A hunk that is nowhere in the file, or that lands on lines an earlier hunk added, is refused, named.
 */
export function placeGoldHunks(file: PatchFile, base: string[]): Placement {
  let image: ImageLine[] = base.map((text, i) => ({ text, old: i + 1 }));
  const changes: PatchChange[] = [];
  const hunks: PatchHunk[] = [];
  const offsets: HunkOffset[] = [];
  for (const [n, hunk] of file.hunks.entries()) {
    const name = `hunk ${n + 1} of ${file.path} (${hunk.header})`;
    const preimage = hunk.lines.filter((l) => l.mark !== "+").map((l) => l.text);
    const trailing = [...hunk.lines].reverse().findIndex((l) => l.mark !== " ");
    const at = findHunk(image, preimage, {
      hint: hunk.newStart > 0 ? hunk.newStart - 1 : 0,
      atTop: hunk.oldStart <= 1,
      atEnd: trailing === 0,
    });
    if (at < 0) return { refused: `${name} is not in the base file: its context and removed lines are found nowhere, as git apply would find them` };
    const olds = image.slice(at, at + preimage.length).map((l) => l.old);
    // The old line the hunk starts at (for an empty old side, the line it comes after, 0 at the top).
    const first = preimage.length > 0 ? olds[0]! : at === 0 ? 0 : image[at - 1]!.old;
    if (first === null || olds.some((old, i) => old !== first + i))
      return { refused: `${name} lands on lines an earlier hunk added; the oracle cannot say where that is in the base file` };
    const offset = first - hunk.oldStart;
    if (offset !== 0) offsets.push({ file: file.path, hunk: n + 1, offset });
    const moved = hunk.changes.map((c) => ({ ...c, start: c.start + offset, end: c.end + offset }));
    changes.push(...moved);
    hunks.push({ ...hunk, oldStart: hunk.oldStart + offset, changes: moved });
    const postimage = postimageOf(hunk, olds);
    image = [...image.slice(0, at), ...postimage, ...image.slice(at + preimage.length)];
  }
  return { file: { ...file, changes, hunks }, offsets };
}

/** The hunk's new side, its context lines keeping the base lines they matched. */
function postimageOf(hunk: PatchHunk, olds: (number | null)[]): ImageLine[] {
  let old = 0;
  const lines: ImageLine[] = [];
  for (const line of hunk.lines) {
    if (line.mark === " ") lines.push({ text: line.text, old: olds[old]! });
    if (line.mark === "+") lines.push({ text: line.text, old: null });
    if (line.mark !== "+") old++;
  }
  return lines;
}

/**
 * Where `preimage` is in `image` (an index), or -1: at `hint` first, then hint + 1, hint - 1, hint + 2, … within the
 * file; only at the top or only at the end when the hunk must be there.
 */
function findHunk(image: ImageLine[], preimage: string[], where: { hint: number; atTop: boolean; atEnd: boolean }): number {
  const last = image.length;
  let start = where.atTop ? 0 : where.atEnd ? last - preimage.length : where.hint;
  start = Math.min(Math.max(start, 0), last);
  const matches = (at: number) =>
    at + preimage.length <= last &&
    (!where.atTop || at === 0) &&
    (!where.atEnd || at + preimage.length === last) &&
    preimage.every((text, i) => image[at + i]!.text === text);
  let backwards = start;
  let forwards = start;
  if (matches(start)) return start;
  for (let i = 0; backwards > 0 || forwards < last; i++) {
    const forward = i % 2 === 0 ? forwards < last : backwards === 0;
    const at = forward ? ++forwards : --backwards;
    if (matches(at)) return at;
  }
  return -1;
}
