import fs from "node:fs";
import path from "node:path";
import { applyPatch, parsePatch } from "diff";
import { lineCoverage } from "../line-coverage.js";
import { readPatchHunks } from "../read-patch-hunks.js";
import type { BenchInstance } from "../read-instances.js";
import type { InstanceRun } from "../run-eval-instance.js";
import type { OracleLoss } from "../types.js";

/**
 * Where an oracle run lost the gold patch, per gold file, in the order the pipeline goes: the file cannot be edited
 * (created, deleted, over the size cap), BM25 never handed it over, the relevance check or the Manager set it aside,
 * every attempt was refused (the edit engine, the syntax check), or the kept change is not the gold one; then a patch
 * that does not apply. Empty when the patch is the gold patch.
 */
export function explainLosses(instance: BenchInstance, run: InstanceRun): OracleLoss[] {
  const losses: OracleLoss[] = [];
  const { result, resolved } = run;
  for (const file of readPatchHunks(instance.patch ?? "")) {
    const loss = (cause: string, detail: string) => losses.push({ cause, file: file.path, detail });
    if (file.created) {
      loss("new-file", "the gold patch creates this file; the pipeline only changes files the Custodian located");
      continue;
    }
    if (file.deleted) {
      loss("deleted-file", "the gold patch deletes this file; the pipeline only changes files");
      continue;
    }
    if (!result.located.includes(file.path)) {
      loss(...notLocated(run, file.path));
      continue;
    }
    if (!result.kept.includes(file.path)) {
      loss("not-kept", "the relevance check dropped it although the oracle judged it relevant");
      continue;
    }
    const outcome = resolved?.outcomes.find((o) => o.path === file.path);
    if (!outcome) {
      const aside = resolved?.setAside.find((f) => f.path === file.path);
      loss(aside ? `set-aside-${aside.kind}` : "no-patch", aside ? aside.description : (result.failure?.reason ?? "the run ended before this file was coded"));
      continue;
    }
    if (!outcome.kept) {
      const error = outcome.attempts.at(-1)?.error ?? "not approved";
      loss(/syntax error/.test(error) ? "syntax-refused" : "edit-refused", error);
      continue;
    }
    const coverage = lineCoverage(goldSection(instance.patch!, file.path), outcome.diff) ?? 1;
    const same = applyGold(instance.patch!, file.path, outcome.before) === outcome.after;
    if (coverage < 1 && same)
      loss(
        "same-text-other-diff",
        `the file is exactly as the gold patch leaves it, but the diff aligns blank lines differently, so Eq. 1 counts ${Math.round(100 * coverage)} %`,
      );
    else if (coverage < 1) loss("misplaced", `the kept change covers ${Math.round(100 * coverage)} % of the gold lines`);
    else if (!same) loss("changed-text", "the change is at the gold lines but its text differs from the gold text (re-indented or merged)");
  }
  if (result.patch && result.applies === false) losses.push({ cause: "not-applied", file: "", detail: "git apply --check refused the predicted patch" });
  return losses;
}

/** Why a gold file was never handed to the Custodian: missing, over the size cap, or below the top k of BM25. */
function notLocated(run: InstanceRun, file: string): [string, string] {
  if (run.result.failure && run.result.located.length === 0) return ["no-patch", `the run failed before files were located: ${run.result.failure.reason}`];
  const size = run.checkout ? fs.statSync(path.join(run.checkout, file), { throwIfNoEntry: false })?.size : undefined;
  if (size === undefined) return ["not-located", "the file is not in the checkout"];
  const cap = run.config?.max_file_bytes;
  if (cap !== undefined && size > cap) return ["size-cap", `${size} bytes, over max_file_bytes (${cap})`];
  return ["not-located", `BM25 did not rank it among the top ${run.config?.top_k ?? "k"} files`];
}

/** The gold patch's part for one file, as a patch of its own. */
function goldSection(gold: string, file: string): string {
  const sections = gold.split(/^(?=diff --git )/m);
  return sections.find((s) => s.startsWith(`diff --git a/${file} `)) ?? "";
}

/** The file after the gold patch, or null when the gold hunks do not parse or apply to the text the pipeline read. */
function applyGold(gold: string, file: string, before: string): string | null {
  try {
    const patch = parsePatch(goldSection(gold, file))[0];
    const after = patch ? applyPatch(before, patch) : false;
    return after === false ? null : after;
  } catch {
    // A gold patch whose hunk counts are off cannot be applied by jsdiff; git may still take it.
    return null;
  }
}
