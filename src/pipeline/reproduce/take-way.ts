import fs from "node:fs";
import { encodePatch, makeDiff } from "../../edit/index.js";
import { decodeFile } from "../../edit/file-encoding.js";
import { resolveInside } from "../../lib/safe-path.js";
import type { OpenedWorkbench } from "../tests/open-workbench.js";
import type { LocatedFile, ReproductionReport, ReproductionScript, ResolveResult, ShownIssue, StageContext, TestsReport } from "../types.js";
import { chooseWay, type WayAnswer } from "./choose-way.js";
import { foreseeUnreachedHost } from "./foresee-unreached-host.js";
import { runReproduction, type ReproductionBench } from "../tests/run-reproduction.js";
import { reproduceIssue } from "./reproduce-issue.js";

/** The way taken: its report so far, the reproduction the Developers work against (or null), and the final check. */
export interface TakenWay {
  report: ReproductionReport;
  bench: ReproductionBench | null;
  /** Runs the reproduction with the whole change and reports it as a `reproduction` event; the report as is on the static way. */
  verify(merged: Pick<ResolveResult, "changes">): Promise<ReproductionReport>;
}

/**
 * The Manager chooses the way; on the dynamic way the Reproducer shows the issue in the workbench, or the run goes the
 * static way and the report says why: before any script when the tests on the untouched checkout could not reach a
 * host, else after the scripts. Each step is reported as a `reproduction` progress event.
 */
export async function takeWay(
  ctx: StageContext,
  input: {
    issue: ShownIssue;
    located: LocatedFile[];
    /** The Manager's answer on the way, given with the first file's task; asked apart when absent. */
    answered?: WayAnswer;
    workbench: () => Promise<OpenedWorkbench>;
    /** The tests' report once they ran on the untouched checkout (null without a `test_command`). */
    tests: Promise<{ report: TestsReport } | null>;
  },
): Promise<TakenWay> {
  const chosen = await chooseWay(ctx, input.issue, input.located, input.answered);
  let report: ReproductionReport = { choice: chosen.choice, attempts: [], ...(chosen.reproducer ? { reproducer: chosen.reproducer } : {}) };
  ctx.onProgress({ stage: "reproduction", reproduction: report });
  if (!chosen.reproducer) return { report, bench: null, verify: async () => report };

  // The workbench runs one command at a time and the tests were queued first, so waiting for them costs no time.
  const foreseen = foreseeUnreachedHost(input.issue, (await input.tests)?.report);
  if (foreseen) {
    report = { ...report, fallback: foreseen };
    ctx.onProgress({ stage: "reproduction", reproduction: report });
    return { report, bench: null, verify: async () => report };
  }

  const done = await reproduceIssue(ctx, { issue: input.issue, located: input.located, reproducer: chosen.reproducer, workbench: input.workbench });
  report = {
    ...report,
    attempts: done.attempts,
    ...(done.reproduced ? { reproduced: done.reproduced } : { fallback: done.fallback! }),
    ...(done.sandbox ? { sandbox: done.sandbox } : {}),
    ...(done.environment ? { environment: done.environment } : {}),
  };
  ctx.onProgress({ stage: "reproduction", reproduction: report });
  const opened = done.reproduced ? await input.workbench() : null;
  if (!done.reproduced || !opened?.ok) return { report, bench: null, verify: async () => report };

  const bench: ReproductionBench = { workbench: opened.workbench, ...done.reproduced };
  return {
    report,
    bench,
    verify: async (merged) => {
      const after = await runReproduction(bench.workbench, bench.script, merged.changes);
      // Kept only when it passes with the change, and as its own file: never over a file the team changed.
      const kept = ctx.config.keep_reproduction === "test" && after.outcome === "passed" && !merged.changes.some((c) => c.path === bench.script.path);
      report = { ...report, after, ...(kept ? { kept } : {}) };
      ctx.onProgress({ stage: "reproduction", reproduction: report });
      return report;
    },
  };
}

/**
 * The change with the reproduction added as a regression test (`keep_reproduction: test`): a new file, or the Reproducer's
 * version of an existing test file, after the kept source changes.
 */
export function keepReproduction(ctx: Pick<StageContext, "root">, merged: Pick<ResolveResult, "patch" | "changes" | "outcomes">, script: ReproductionScript) {
  const { absolute } = resolveInside(ctx.root, script.path);
  const existing = fs.existsSync(absolute) ? decodeFile(fs.readFileSync(absolute)) : null;
  const encoding = existing?.encoding ?? "utf-8";
  const patch = existing ? encodePatch(script.path, existing.text, script.content, encoding) : Buffer.from(makeDiff(script.path, null, script.content), "utf8");
  return {
    ...merged,
    patch: Buffer.concat([merged.patch, patch]),
    changes: [...merged.changes.filter((c) => c.path !== script.path), { path: script.path, before: existing?.text ?? "", after: script.content, encoding }],
  };
}
