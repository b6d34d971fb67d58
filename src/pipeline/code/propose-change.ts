import { normalizedDigest, type FileEncoding } from "../../edit/index.js";
import { runReproduction, type ReproductionBench } from "../tests/run-reproduction.js";
import type { ChangedFile, TestBench } from "../tests/open-test-bench.js";
import type { CandidateGroup, CandidateReport, StageContext, TestRun, TestVerdict } from "../types.js";
import { makeAttempts, type AttemptInput } from "./make-attempt.js";
import { selectCandidate } from "./select-candidate.js";

/** Where a change is tested: the task's file, the earlier steps' kept changes, the bench and the reproduction, when there are. */
export interface ChangeChecks {
  path: string;
  encoding: FileEncoding;
  earlierKept: ChangedFile[];
  tests: TestBench | null;
  reproduction: ReproductionBench | null;
}

/** A change that went through the tests and the reproduction, ready for review, or why there is none. */
export type Proposal =
  | { ok: true; after: string; diff: string; callers: string; checkSkipped?: string; tests?: TestVerdict; reproduced?: TestRun; candidates?: CandidateReport }
  | { ok: false; error: string; candidates?: CandidateReport };

/** One group of candidates as it is sampled: the group, its file's text after the change, and its first candidate's check. */
interface SampledGroup {
  group: CandidateGroup;
  after: string;
  /** What the language server said of the group's first candidate: the uses it alters, or why it did not check. */
  checked: { callers: string; checkSkipped?: string };
}

/**
 * One attempt's change, tested. With `candidates` over 1 (Agentless, Trae: generate, prune, select): sample that
 * many, drop those that fail, group the rest by normalized text (votes), test each group once, drop those that break
 * passing tests, put those that make the reproduction pass first, and let the QA Engineer select; votes decide otherwise.
 */
export async function proposeChange(ctx: StageContext, attempt: AttemptInput, checks: ChangeChecks): Promise<Proposal> {
  const count = ctx.config.candidates;
  const results = await makeAttempts(ctx, attempt, count);
  if (count === 1) {
    const result = results[0]!;
    return result.ok ? { ...result, ...(await checkChange(checks, result.after)) } : result;
  }
  const dropped: CandidateReport["dropped"] = [];
  const byText = new Map<string, SampledGroup>();
  for (const [index, result] of results.entries()) {
    const number = index + 1;
    if (!result.ok) {
      dropped.push({ number, reason: result.error });
      continue;
    }
    const key = await normalizedDigest(checks.path, result.after);
    const known = byText.get(key);
    if (known) known.group.members.push(number);
    else {
      const checked = { callers: result.callers, ...(result.checkSkipped ? { checkSkipped: result.checkSkipped } : {}) };
      byText.set(key, { group: { members: [number], diff: result.diff, normalized: key }, after: result.after, checked });
    }
  }
  const ranked = [...byText.values()].sort((a, b) => b.group.members.length - a.group.members.length);
  const groups = ranked.map((r) => r.group);
  if (groups.length === 0) {
    return {
      ok: false,
      error: `none of the ${count} candidates gave a change (${describeDropped(dropped)})`,
      candidates: { sampled: count, dropped, groups: [], why: "" },
    };
  }
  for (const { group, after } of ranked) {
    const checked = await checkChange(checks, after);
    if (checked.tests) group.tests = checked.tests;
    if (checked.reproduced) group.reproduction = checked.reproduced;
    if (checked.tests?.breaks) group.out = checked.tests.breaks;
  }
  const choice = await chooseGroup(ctx, attempt, groups);
  if (choice === null) {
    // No change that breaks passing tests goes to review: the attempt fails, as one whose edit does not apply.
    const reasons = groups.map((g, i) => `group ${i + 1} (candidate${g.members.length === 1 ? "" : "s"} ${g.members.join(", ")}): ${g.out}`).join("; ");
    const gave = count - dropped.length;
    const others = dropped.length ? `; the other ${dropped.length} gave none (${describeDropped(dropped)})` : "";
    const error = `each of the ${gave} candidates${dropped.length ? " that gave a change" : ""} breaks tests that passed before (${reasons})${others}`;
    return { ok: false, error, candidates: { sampled: count, dropped, groups, why: "every group breaks tests that passed before" } };
  }
  const { index, why } = choice;
  const { group: chosen, after, checked } = ranked[index]!;
  const report: CandidateReport = { sampled: count, dropped, groups, chosen: index, why };
  return {
    ok: true,
    after,
    diff: chosen.diff,
    ...checked,
    ...(chosen.tests ? { tests: chosen.tests } : {}),
    ...(chosen.reproduction ? { reproduced: chosen.reproduction } : {}),
    candidates: report,
  };
}

/** Why each dropped candidate gave no change, as the Developer reads it. */
function describeDropped(dropped: CandidateReport["dropped"]): string {
  return dropped.map((d) => `candidate ${d.number}: ${d.reason}`).join("; ");
}

/** The change's run of the tests and of the reproduction, each when there is one (the bench runs a change set once). */
async function checkChange(checks: ChangeChecks, after: string): Promise<{ tests?: TestVerdict; reproduced?: TestRun }> {
  const changes = [...checks.earlierKept, { path: checks.path, after, encoding: checks.encoding }];
  const tests = checks.tests ? await checks.tests.check(changes) : undefined;
  const reproduced = checks.reproduction ? await runReproduction(checks.reproduction.workbench, checks.reproduction.script, changes) : undefined;
  return { ...(tests ? { tests } : {}), ...(reproduced ? { reproduced } : {}) };
}

/**
 * The group that goes to review, in one written order: groups that break passing tests are out (when all are, none
 * goes: null); of the survivors, those that make the reproduction pass come first, then most votes; one survivor is
 * taken as is; among several the QA Engineer selects, and the votes decide when it names none that exists.
 */
async function chooseGroup(ctx: StageContext, attempt: AttemptInput, groups: CandidateGroup[]): Promise<{ index: number; why: string } | null> {
  const passes = (g: CandidateGroup) => (g.reproduction?.outcome === "passed" ? 1 : 0);
  const survivors = groups
    .map((group, index) => ({ group, index }))
    .filter(({ group }) => !group.out)
    .sort((a, b) => passes(b.group) - passes(a.group) || b.group.members.length - a.group.members.length);
  if (survivors.length === 0) return null;
  if (survivors.length === 1) return { index: survivors[0]!.index, why: "the only group that breaks no passing test" };
  const selected = await selectCandidate(
    ctx,
    attempt,
    survivors.map((s) => s.group),
  );
  if ("choice" in selected) return { index: survivors[selected.choice]!.index, why: `the QA Engineer selected it: ${selected.reason}` };
  const named = selected.named === null ? "named no change" : `named change ${selected.named}, which is not among the ${survivors.length} shown`;
  return { index: survivors[0]!.index, why: `the votes decided (the QA Engineer ${named})` };
}
