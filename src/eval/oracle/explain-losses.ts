import fs from "node:fs";
import path from "node:path";
import { lineCoverage } from "../line-coverage.js";
import type { BenchInstance } from "../read-instances.js";
import type { InstanceRun } from "../run-eval-instance.js";
import type { OracleAccount, OracleLoss } from "../types.js";
import { placeGoldPatch } from "./place-gold-hunks.js";

/**
 * Where an oracle run lost the gold patch, per gold file, in the order the pipeline goes: the file cannot be edited
 * (created, deleted, over the size cap), BM25 never handed it over, the relevance check or the Manager set it aside,
 * every attempt was refused (the edit engine, the syntax check), or the kept file is not the gold one; then a patch
 * that does not apply. Those are the pipeline's. The instrument's own are told apart: a gold hunk the oracle cannot
 * place, a failed call to the oracle that stopped the run, a gold patch git cannot apply to the base. Empty when the
 * patch is the gold patch.
 */
export function explainLosses(instance: BenchInstance, run: InstanceRun): OracleAccount {
  const losses: OracleLoss[] = [];
  const { result, resolved, comparison } = run;
  const gold = placeGoldPatch(instance.patch ?? "", run.checkout);
  // A call to the oracle that failed (a refusal, a timeout on a loaded machine) stopped the run: not the pipeline's loss.
  const unanswered = /\(model oracle\) failed/.test(result.failure?.reason ?? "");
  for (const file of gold.files) {
    const loss = (cause: string, detail: string, by: OracleLoss["by"] = "pipeline") => losses.push({ cause, by, file: file.path, detail });
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
    const refused = gold.refused.get(file.path);
    if (refused) {
      loss("gold-not-placed", refused, "instrument");
      continue;
    }
    const outcome = resolved?.outcomes.find((o) => o.path === file.path);
    if (!outcome && unanswered) {
      loss("oracle-unanswered", result.failure!.reason, "instrument");
      continue;
    }
    if (!result.kept.includes(file.path)) {
      loss("not-kept", "the relevance check dropped it although the oracle judged it relevant");
      continue;
    }
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
    const compared = comparison?.files?.find((f) => f.path === file.path);
    // Without git's comparison (a patch git cannot apply), the kept change's own diff is read by its hunks.
    const coverage = compared ? (compared.coverage ?? 1) : (lineCoverage(goldSection(instance.patch!, file.path), outcome.diff) ?? 1);
    if (compared?.same) continue;
    if (coverage < 1) loss("misplaced", `the kept change covers ${Math.round(100 * coverage)} % of the gold lines`);
    else if (compared) loss("changed-text", "the change is at the gold lines but its text differs from the gold text (re-indented or merged)");
  }
  if (comparison?.asGiven === "git apply refused the gold patch")
    losses.push({
      cause: "gold-not-applied",
      by: "instrument",
      file: "",
      detail: "git apply refused the gold patch on the base files: Eq. 1 was read from the hunks as given",
    });
  if (result.patch && result.applies === false)
    losses.push({ cause: "not-applied", by: "pipeline", file: "", detail: "git apply --check refused the predicted patch" });
  return { losses, offsets: gold.offsets };
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
