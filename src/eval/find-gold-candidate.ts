import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { decodeFile } from "../edit/file-encoding.js";
import { normalizedDigest } from "../edit/normalize-code.js";
import type { ResolveResult } from "../pipeline/types.js";
import { applyPatchInCopy } from "./apply-patch-in-copy.js";
import { readPatchHunks } from "./read-patch-hunks.js";

/**
 * Whether the candidates held the gold change: for every file the gold patch changes, some candidate group of a task on
 * that file leaves it as `git apply` of the gold patch does, once normalized (normalizeCode, as candidates are grouped).
 * Equality after normalization rather than Eq. 1 (compare-to-gold.ts): Eq. 1 counts the gold's changed lines a change
 * touches, so a different change on the same lines scores 1, and the gold's own change with other formatting or a
 * comment scores less; "the same code once comments and formatting are dropped" is what makes candidates one group.
 * Null when no candidates were sampled or git cannot apply the gold patch to the checkout.
 */
export async function findGoldCandidate(resolved: ResolveResult, checkout: string, gold: string): Promise<boolean | null> {
  const digests = new Map<string, Set<string>>();
  let sampled = false;
  for (const outcome of resolved.outcomes) {
    for (const attempt of outcome.attempts) {
      if (!attempt.candidates) continue;
      sampled = true;
      const held = digests.get(outcome.path) ?? new Set<string>();
      for (const group of attempt.candidates.groups) held.add(group.normalized);
      digests.set(outcome.path, held);
    }
  }
  if (!sampled) return null;
  const paths = [...new Set(readPatchHunks(gold).map((f) => f.path))];
  const work = await fs.promises.mkdtemp(path.join(os.tmpdir(), "magis-gold-"));
  try {
    if (!(await applyPatchInCopy(checkout, paths, work, Buffer.from(gold, "utf8")))) return null;
    for (const file of paths) {
      const after = path.join(work, file);
      // A file the gold patch deletes is no candidate's: candidates change a file's text.
      if (!fs.existsSync(after)) return false;
      const digest = await normalizedDigest(file, decodeFile(fs.readFileSync(after)).text);
      if (!digests.get(file)?.has(digest)) return false;
    }
    return true;
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}
