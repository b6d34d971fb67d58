import type { MemoryStore } from "../store/store.js";
import { runCodingTasks } from "./code/index.js";
import { mergeChanges } from "./code/merge-changes.js";
import { inStage, StageError, type StageName } from "./errors.js";
import { showIssue } from "./format-issue.js";
import { locateFiles } from "./locate/locate-files.js";
import { defineTasks } from "./plan/define-tasks.js";
import { designDevelopers } from "./plan/design-developers.js";
import { holdKickoffMeeting } from "./plan/hold-kickoff-meeting.js";
import { makePlan } from "./plan/make-plan.js";
import { refineRoles } from "./plan/refine-roles.js";
import { countUsage } from "./report/count-usage.js";
import { describeSetAside } from "./report/describe-set-aside.js";
import { selectNeedsHuman } from "./report/select-needs-human.js";
import { startTestBench } from "./tests/start-test-bench.js";
import { keepReproduction, takeWay } from "./reproduce/take-way.js";
import { askWay } from "./reproduce/choose-way.js";
import type { IssueText, QuestionResult, ResolveResult, SetAsideFile, StageContext, TaskOutcome } from "./types.js";

/**
 * Resolves one issue on a local checkout as MAGIS does (§3.2, Algorithms 1–3) and returns the
 * change with the material of its report, or the Manager's question when the issue does not say enough
 * to act on. Throws a StageError when there is no patch. The checkout is only read; the model, the
 * clock, progress reporting and the plan's approval come in through `ctx`.
 */
export async function resolveIssue(ctx: StageContext, text: IssueText, memory: MemoryStore | null): Promise<ResolveResult | QuestionResult> {
  const started = ctx.now();
  const usage = countUsage(ctx.llm, ctx.config);
  ctx = { ...ctx, llm: usage.llm };
  // The issue as every prompt shows it, formatted once for all the stages.
  const issue = showIssue(text);

  // 0. Where code may run and a test_command is set: the tests set up and run on the untouched checkout meanwhile.
  const testing = startTestBench(ctx);
  try {
    // 1. The Repository Custodian locates the files the issue is about (Algorithm 1).
    const located = await step("locate", () => locateFiles(ctx, issue, memory));
    // 2. The Manager defines a file-level task per located file; a file may need none, or need a person (protected). With
    // the first file's task it chooses the way (MarsCode Agent §3.1), where there is one to choose.
    const defined = await step("plan", () => defineTasks(ctx, issue, located, askWay(ctx, located)));
    const { tasks, setAside, questions } = defined;
    // 2b. With no task to act on and a question instead, the Manager asks the issue's author rather than guess.
    if (tasks.length === 0 && questions[0]) return { kind: "question", question: questions[0], located, setAside, usage: usage.report(ctx.now() - started) };
    if (tasks.length === 0) throw noTasks(setAside);
    // 2c. On the dynamic way the Reproducer shows the issue in the sandbox.
    const way = await step("reproduce", () =>
      takeWay(ctx, { issue, located, ...(defined.way ? { answered: defined.way } : {}), workbench: testing.workbench, tests: testing.ready }),
    );
    ctx.onProgress({ stage: "tasks", tasks });
    // 3. The Manager builds the team: one Developer per task.
    const team = await step("plan", () => designDevelopers(ctx, issue, tasks));
    ctx.onProgress({ stage: "team", developers: team });
    // 4. The kick-off meeting, as circular speech.
    const transcript = await step("kickoff", () => holdKickoffMeeting(ctx, issue, tasks, team));
    ctx.onProgress({ stage: "kickoff", transcript });
    // 5. The Developers refine their roles from the meeting.
    const developers = await step("kickoff", () => refineRoles(ctx, issue, { tasks, developers: team, transcript }));
    // 6. The Manager makes the main plan (Algorithm 2).
    const plan = await step("plan", () => makePlan(ctx, issue, tasks, transcript));
    ctx.onProgress({ stage: "plan", plan });
    // 6b. With plan_approval, a person approves the plan before any code is written; their guidance is one more hint.
    const approval = ctx.approvePlan ? await ctx.approvePlan({ tasks, developers, transcript, plan }) : {};
    const coding = approval.guidance ? showIssue({ ...text, hints: [...text.hints, approval.guidance] }) : issue;
    // 7. Developers and QA Engineers run the coding tasks per the plan (Algorithm 3), each attempt tested when it can be.
    const tests = await testing.ready;
    const outcomes = await step("code", () => runCodingTasks(ctx, coding, { tasks, developers, plan, tests: tests?.bench ?? null, reproduction: way.bench }));
    // 8. The kept file diffs merge into the repository-level change, which the tests and the reproduction judge as a whole.
    const merged = mergeChanges(plan, outcomes);
    if (merged.changes.length === 0) throw nothingKept(merged.outcomes, setAside);
    const report = await testing.judge(merged.changes);
    const reproduction = await way.verify(merged);
    // The environment the commands ran in, once it has been kept for later jobs (or why not).
    const environment = await testing.environment();

    const result: ResolveResult = {
      ...(reproduction.kept ? keepReproduction(ctx, merged, way.bench!.script) : merged),
      located,
      tasks,
      setAside,
      developers,
      transcript,
      plan,
      ...(report ? { tests: report } : {}),
      reproduction,
      ...(environment ? { environment } : {}),
      usage: usage.report(ctx.now() - started),
    };
    ctx.onProgress({ stage: "done", result });
    return result;
  } finally {
    await testing.close();
  }
}

/** A stage of the issue run; a failure that is not already a StageError names the stage. */
function step<T>(stage: StageName, run: () => Promise<T>): Promise<T> {
  return inStage(stage, "Fix what the message names (model settings, token_budget, the file), then run again.", run);
}

function noTasks(setAside: SetAsideFile[]): StageError {
  const forHuman = needsHuman(setAside);
  if (forHuman) {
    return new StageError(
      "plan",
      `Every change the issue needs is in protected files, which the bot never changes, so there is nothing to push. Needs a human: ${forHuman}.`,
      "Make these changes by hand; or, if the bot should make them, remove the matching patterns from `protected_paths` in .github/magis.yml and run again.",
    );
  }
  const reasons = setAside.map((f) => `${f.path}: ${describeSetAside(f)}`);
  return new StageError(
    "plan",
    `The Manager found nothing to change in the located files, so there is nothing to code (${reasons.join("; ")}).`,
    "Name the file to change, or describe the expected behaviour more precisely, as a hint (`/magis retry <guidance>` or --hints-file), then run again.",
  );
}

function nothingKept(outcomes: TaskOutcome[], setAside: SetAsideFile[]): StageError {
  const reasons = outcomes.map((o) => `${o.path}: ${describeFailure(o)}`).join("; ");
  const forHuman = needsHuman(setAside);
  return new StageError(
    "code",
    `Every coding task failed, so there is no patch (${reasons}).${forHuman ? ` Protected files also need a human: ${forHuman}.` : ""}`,
    "Run again with guidance (`/magis retry <guidance>` or --hints-file), raise qa_iterations, or set keep_unapproved: true in .github/magis.yml to keep changes the QA Engineer did not approve.",
  );
}

/** The protected files the Manager says must change, each with what must change there, or "" when there are none. */
function needsHuman(setAside: SetAsideFile[]): string {
  return selectNeedsHuman(setAside)
    .map((f) => `${f.path} (${f.description.trim()})`)
    .join("; ");
}

function describeFailure(outcome: TaskOutcome): string {
  const last = outcome.attempts[outcome.attempts.length - 1];
  const count = `${outcome.attempts.length} attempt${outcome.attempts.length === 1 ? "" : "s"}`;
  if (!last) return "no attempt was made";
  if (last.error) return `${count}, the last refused: ${last.error}`;
  return `${count}, not approved by QA (last comment: ${last.review?.comment ?? "none"})`;
}
