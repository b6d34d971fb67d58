import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { protectingPattern } from "../../lib/protected-paths.js";
import { scriptAnswer } from "../../llm/read-script-answer.js";
import { resolveInside, UnsafePathError } from "../../lib/safe-path.js";
import { describeExit } from "../tests/describe-test-verdict.js";
import type { OpenedWorkbench } from "../tests/open-workbench.js";
import { describeEnvironmentGap, readEnvironmentFailure, type EnvironmentGap } from "../tests/read-environment-failure.js";
import { COMMAND_CHARS, cutText, describeRun, describeScript, REASON_CHARS, runReproduction } from "../tests/run-reproduction.js";
import type { EnvironmentReport, IssueText, LocatedFile, ReproductionAttempt, ReproductionScript, ShownIssue, StageContext, TestRun } from "../types.js";
import { describeLocated } from "./choose-way.js";
import { reportsUnreachedHost } from "./foresee-unreached-host.js";

/** The answer developer-check-reproduction asks for: the reason first, then the verdict. */
export const checkSchema = z.object({
  reason: z.string(),
  reproduced: z.boolean(),
});

/** What reproducing needs besides the issue: the located files, the Reproducer, and the workbench it runs in. */
export interface ReproduceInput {
  issue: ShownIssue;
  located: LocatedFile[];
  reproducer: { name: string; role: string };
  /** Opens (or returns) the set-up copy in the sandbox. */
  workbench: () => Promise<OpenedWorkbench>;
}

/** The scripts tried, and the one that shows the issue with its failing run, or why none does. */
export interface Reproduced {
  attempts: ReproductionAttempt[];
  reproduced?: { script: ReproductionScript; before: TestRun };
  fallback?: string;
  /** What held the scripts, when the workbench opened. */
  sandbox?: { label: string; description: string };
  /** The environment the scripts ran in (or that failed), when the repository declares one. */
  environment?: EnvironmentReport;
}

/**
 * The Reproducer writes a script that shows the issue and the Tester runs it on the untouched checkout, in the sandbox
 * (MarsCode Agent §3.1): up to `reproduce_attempts` scripts, each judged first by how its run ended (it must fail, not
 * pass, hang or fail on its own mistakes) and then by the Reproducer, who reads the output against the issue. Each
 * failed script and what its run printed go into the next. When none shows the issue, `fallback` says why.
 */
export async function reproduceIssue(ctx: StageContext, input: ReproduceInput): Promise<Reproduced> {
  const opened = await input.workbench();
  if (!opened.ok) {
    const fallback = `the repository's commands could not run (${opened.why})`;
    return { attempts: [], fallback, ...(opened.environment ? { environment: opened.environment } : {}) };
  }
  const { workbench } = opened;
  // What held the scripts, for the report.
  const held = { sandbox: workbench.sandbox, ...(workbench.environment ? { environment: workbench.environment } : {}) };
  const { name, role } = input.reproducer;
  const issue = input.issue.shown;
  const attempts: ReproductionAttempt[] = [];
  let feedback = "(none: this is your first script)";
  for (let number = 1; number <= ctx.config.reproduce_attempts; number++) {
    const { value } = await ctx.llm.ask({
      agent: "developer",
      prompt: "developer-write-reproduction",
      vars: { name, role, issue, files: describeLocated(input.located), test_command: describeTests(ctx), feedback },
      text: scriptAnswer,
    });
    const script: ReproductionScript = { path: value.path, command: value.command, content: value.content, expected: value.expected };
    const placed = placeScript(ctx, script);
    if (typeof placed === "string") {
      feedback = `Your script ${number} was not run: ${cutText(placed, REASON_CHARS)}.`;
      continue;
    }
    script.path = placed.path;
    const run = await runReproduction(workbench, script, []);
    // A script that cannot start for want of what the environment lacks, or that needs the network the sandbox does not
    // give, says so at once; another script would meet the same sandbox.
    const gap = environmentGap(ctx, input.issue, run);
    if (gap) {
      const how = gap.kind === "network" ? "needs the network" : "could not start";
      attempts.push({ number, script, run, reproduced: false, reason: `the script ${how}: ${describeEnvironmentGap(gap)}` });
      return { attempts, ...held, fallback: `the scripts cannot run where they run: ${describeEnvironmentGap(gap)}` };
    }
    const problem = runProblem(ctx, input.issue, script, run);
    const verdict = problem
      ? { reproduced: false, reason: problem }
      : (
          await ctx.llm.ask({
            agent: "developer",
            prompt: "developer-check-reproduction",
            vars: {
              name,
              role,
              issue,
              path: cutText(script.path, COMMAND_CHARS),
              command: cutText(script.command, COMMAND_CHARS),
              content: cutText(script.content),
              expected: cutText(script.expected, REASON_CHARS),
              output: describeRun(run),
            },
            schema: checkSchema,
          })
        ).value;
    const attempt: ReproductionAttempt = { number, script, run, reproduced: verdict.reproduced, reason: verdict.reason.trim() || "no reason given" };
    attempts.push(attempt);
    if (attempt.reproduced) return { attempts, reproduced: { script, before: run }, ...held };
    feedback = [
      `Your script ${number}, \`${cutText(script.path, COMMAND_CHARS)}\` run with \`${cutText(script.command, COMMAND_CHARS)}\`:`,
      describeScript(script),
      "",
      describeRun(run),
      "",
      `It does not show the issue: ${cutText(attempt.reason, REASON_CHARS)}`,
    ].join("\n");
  }
  const last = attempts.at(-1);
  const tried = `${ctx.config.reproduce_attempts} script${ctx.config.reproduce_attempts === 1 ? "" : "s"}`;
  return { attempts, ...held, fallback: `none of the Reproducer's ${tried} showed the issue${last ? ` (the last: ${last.reason})` : ""}` };
}

/**
 * What the environment lacks, when the script failed for that reason: a command or interpreter not found, a module it
 * imports not installed, or a host it could not reach. A Python module of the repository's own (its top folder or file
 * at the root) that is missing is the script's mistake, not the environment's; so is a missing module the issue itself
 * reports, and a host not reached in an issue that reports such a failure (a client's error handling, say).
 */
function environmentGap(ctx: StageContext, issue: IssueText, run: TestRun): EnvironmentGap | null {
  if (run.outcome !== "failed") return null;
  const gap = readEnvironmentFailure(run.tail, { network: true });
  if (!gap) return null;
  const issueText = `${issue.title}\n${issue.body}\n${issue.hints.join("\n")}`;
  if (gap.kind === "network") return reportsUnreachedHost(issue) ? null : gap;
  // The issue reports that very failure when a line of it names the missing thing beside the same mark.
  const marks = /No module named|Cannot find (?:module|package)|not found|No such file or directory|bad interpreter/;
  if (issueText.split("\n").some((line) => line.includes(gap.name) && marks.test(line))) return null;
  if (gap.kind === "python-module") {
    const top = gap.name.split(".")[0]!;
    if (fs.existsSync(path.join(ctx.root, top, "__init__.py")) || fs.existsSync(path.join(ctx.root, `${top}.py`))) return null;
  }
  return gap;
}

function describeTests(ctx: StageContext): string {
  return ctx.config.test_command ? `They run with \`${cutText(ctx.config.test_command, COMMAND_CHARS)}\`.` : "No test command is set: write a plain script.";
}

/** Where the script may go (a path inside the repository, not protected, not a folder or a link), or why it may not. */
function placeScript(ctx: StageContext, script: ReproductionScript): { path: string } | string {
  if (script.command === "") return "its command is empty; give the shell command that runs it from the repository's root";
  if (script.content.trim() === "") return "it is empty";
  let relative: string;
  let absolute: string;
  try {
    ({ relative, absolute } = resolveInside(ctx.root, script.path));
  } catch (error) {
    if (error instanceof UnsafePathError) return `${error.message}; put it inside the repository`;
    throw error;
  }
  const protecting = protectingPattern(ctx.config.protected_paths, relative);
  if (protecting !== null) return `'${relative}' is protected (it matches \`${protecting}\` in protected_paths); put the script elsewhere`;
  const stat = fs.lstatSync(absolute, { throwIfNoEntry: false });
  if (stat && !stat.isFile()) return `'${relative}' is not a regular file; give the path of a new file`;
  return { path: relative };
}

/**
 * Why a run cannot be a reproduction, by how it ended, before anyone reads it: it passed on the untouched checkout, hung,
 * could not start, or failed on the script's own syntax or imports (unless the issue is about that very error).
 */
function runProblem(ctx: StageContext, issue: IssueText, script: ReproductionScript, run: TestRun): string | null {
  if (run.outcome === "passed") return "the script passed (exit 0) on the untouched code, so it does not show the issue";
  if (run.outcome === "timed-out") return `the script ${describeExit(run, ctx.config.test_timeout_seconds)}; a reproduction must end quickly`;
  if (run.outcome === "error") return `the script ${describeExit(run)}`;
  if (run.exitCode === 126 || run.exitCode === 127) return `the shell could not run \`${script.command}\` (exit ${run.exitCode}: not found or not executable)`;
  const issueText = `${issue.title}\n${issue.body}\n${issue.hints.join("\n")}`;
  const name = script.path.split("/").at(-1)!;
  const syntax = /\b(SyntaxError|IndentationError|TabError)\b/.exec(run.tail);
  if (syntax && run.tail.includes(name) && !issueText.includes(syntax[1]!))
    return `the script has a ${syntax[1]} of its own, so its run says nothing of the issue`;
  // A test runner told to run tests it cannot find runs none (pytest: "not found", "no tests ran"; exit 4 or 5).
  if (/^ERROR: (?:not found|file or directory not found):|\bno tests ran\b/m.test(run.tail))
    return "the command ran no test: the tests it names were not found";
  const missing = /\b(ModuleNotFoundError|ImportError|Cannot find module|ERR_MODULE_NOT_FOUND)\b/.exec(run.tail);
  if (missing && !issueText.includes(missing[1]!))
    return `the script failed to import what it needs (${missing[1]}), which is not the failure the issue reports`;
  return null;
}
