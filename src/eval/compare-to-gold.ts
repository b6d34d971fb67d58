import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { applyPatchInCopy } from "./apply-patch-in-copy.js";
import { gitEnvBelow } from "./git-env-below.js";
import { coveredLines, lineCoverage } from "./line-coverage.js";
import { readPatchHunks, type PatchFile } from "./read-patch-hunks.js";

const run = promisify(execFile);

/** How a patch measures against the gold patch: MAGIS Eq. 1, and per gold file whether the patch leaves it as the gold does. */
export interface GoldComparison {
  /** Eq. 1 line coverage in [0, 1]; null when the gold patch changes nothing. */
  coverage: number | null;
  /**
   * Per gold file, from the files both patches leave: whether they are the same bytes, and the file's Eq. 1 share.
   * Null when the figures were read from the patches' own hunks (no checkout, no patch, or git could not apply one).
   */
  files: { path: string; same: boolean; coverage: number | null }[] | null;
  /** When `files` is null, why: the figures are then the hunks' own. */
  asGiven?: "no checkout" | "no patch" | "git apply refused the gold patch" | "git apply refused the patch";
}

// Git's default alignment, named so that no diff.algorithm or other setting of the user's changes the measure.
const GIT_DIFF = ["diff", "--no-index", "--no-color", "--no-ext-diff", "--no-textconv", "--text", "--diff-algorithm=myers", "--indent-heuristic", "-U0"];

/**
 * Measures `patch` against `gold` on the base files in `checkout` by what they leave, not by how their diffs happen
 * to be aligned: both are applied with `git apply`; a gold file the patch leaves byte for byte as the gold does is
 * wholly covered, and otherwise Eq. 1 reads the line sets from git's own diffs of the base to each result (git's
 * default algorithm, Myers with the indent heuristic), so blank lines align as git aligns them. Without a checkout
 * or a patch, or when git cannot apply one of them, it reads the patches' hunks as given.
 */
export async function compareToGold(checkout: string | null, gold: string, patch: Buffer): Promise<GoldComparison> {
  const goldFiles = readPatchHunks(gold);
  const text = patch.toString("utf8");
  const asGiven = (why: GoldComparison["asGiven"]): GoldComparison => ({ coverage: lineCoverage(gold, text), files: null, asGiven: why });
  if (!checkout) return asGiven("no checkout");
  if (patch.length === 0) return asGiven("no patch");
  const work = await fs.promises.mkdtemp(path.join(os.tmpdir(), "magis-eq1-"));
  try {
    const touched = [...new Set([...goldFiles, ...readPatchHunks(text)].map((f) => f.path))];
    const goldDir = path.join(work, "gold");
    const mineDir = path.join(work, "mine");
    if (!(await applyPatchInCopy(checkout, touched, goldDir, Buffer.from(gold, "utf8")))) return asGiven("git apply refused the gold patch");
    // The patch's own bytes, as the pipeline wrote them: the measure is of the change, not of how it travels.
    if (!(await applyPatchInCopy(checkout, touched, mineDir, patch))) return asGiven("git apply refused the patch");
    const files: NonNullable<GoldComparison["files"]> = [];
    let covered = 0;
    let total = 0;
    for (const file of goldFiles) {
      const base = file.created ? null : path.join(checkout, file.path);
      const goldAfter = existing(path.join(goldDir, file.path));
      const mineAfter = existing(path.join(mineDir, file.path));
      const same = goldAfter === mineAfter || (goldAfter !== null && mineAfter !== null && fs.readFileSync(goldAfter).equals(fs.readFileSync(mineAfter)));
      const wanted = await diffByGit(base, goldAfter, file.path);
      const counts = coveredLines(wanted, same ? wanted : await diffByGit(base, mineAfter, file.path));
      files.push({ path: file.path, same, coverage: counts.total === 0 ? null : counts.covered / counts.total });
      covered += counts.covered;
      total += counts.total;
    }
    return { coverage: total === 0 ? null : covered / total, files };
  } finally {
    await fs.promises.rm(work, { recursive: true, force: true });
  }
}

/** The path when the file is there, else null (the patch deleted it, or never created it). */
function existing(file: string): string | null {
  return fs.existsSync(file) ? file : null;
}

/** git's diff of `from` to `to` (null: no file), read as the changes to `file`. */
async function diffByGit(from: string | null, to: string | null, file: string): Promise<PatchFile[]> {
  const args = [...GIT_DIFF, from ?? "/dev/null", to ?? "/dev/null"];
  let stdout: string;
  try {
    ({ stdout } = await run("git", args, { env: gitEnvBelow(os.tmpdir()), maxBuffer: 256 * 1024 * 1024 }));
  } catch (error) {
    // Exit 1 means the files differ; anything else is git failing.
    const failed = error as { code?: number; stdout?: string; stderr?: string; message: string };
    if (failed.code !== 1 || failed.stdout === undefined)
      throw new Error(`git diff --no-index failed for ${file}: ${failed.stderr?.trim() || failed.message}`, { cause: error });
    stdout = failed.stdout;
  }
  return readPatchHunks(stdout).map((f) => ({ ...f, path: file }));
}
