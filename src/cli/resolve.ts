import { UsageError } from "../lib/usage-error.js";
import { endSentence } from "../lib/end-sentence.js";
import fs from "node:fs";
import path from "node:path";
import { encodeFile } from "../edit/file-encoding.js";
import { writeTraceJsonl } from "../llm/trace.js";
import { StageError } from "../pipeline/errors.js";
import {
  describeAttemptReproduction,
  describeAttemptTests,
  describeReproduction,
  describeTestsReport,
  renderReport,
  resolveIssue,
  runToShow,
  summarizeCandidates,
  withLanguageServers,
} from "../pipeline/index.js";
import type { ProgressEvent, QuestionResult, ResolveResult } from "../pipeline/types.js";
import { resolveInside } from "../lib/safe-path.js";
import { startTimeLimit, TimeLimitError } from "../lib/time-limit.js";
import { checkoutIndex, localHistory, makeModel, MEMORY_HELP, openCheckout, openMemoryStore } from "./open-checkout.js";
import { readIssueFiles } from "./read-issue-file.js";
import { localCommandPolicy } from "./command-policy.js";
import { parseFlags, wholeNumberFlag, type Command } from "./io.js";
import { readSettings } from "../app/settings/read-settings.js";
import { startLocalSession } from "../session/record-local-run.js";
import type { SessionOutcome } from "../session/types.js";
import { renderSettingsHelp } from "../app/settings/render-settings-help.js";

const usage = `Usage: magis resolve --repo DIR --issue-file FILE [--hints-file FILE] --out DIR [--test-command CMD] [--apply]

Resolves an issue on a local checkout with the MAGIS team (Custodian, Manager, Developers, QA
Engineers) and writes into --out:
  patch.diff   the change; \`git apply\` it in the untouched checkout
  report.md    the pull request description: plan, tasks, kick-off transcript, QA reviews, usage
  trace.jsonl  one JSON record per model call
  session.html the run's session as one page: stages, model calls, commands, diffs, tokens
The checkout is only read, unless --apply writes the change into it. Progress goes to stderr.
The run stops at job_timeout_minutes of .github/magis.yml (30 by default), as a job of the App does, and
on SIGTERM or Ctrl-C, having removed its copies of the checkout and stopped what it started.
Exit 0 with a patch, 1 when there is none (the reason is printed), 2 for a usage mistake, 143 or 130
when SIGTERM or SIGINT stopped it.

Options:
  --repo DIR          the checkout (its .github/magis.yml, if any, is the config)
  --issue-file FILE   the issue: first line the title, the rest the body
  --hints-file FILE   hints (issue comments, guidance), as \`magis locate\` reads them
  --out DIR           where the files go; must be outside --repo
  --test-command CMD  the command that runs the checkout's tests (e.g. "npm test"), run in a shell at
                      the root of a copy of the checkout before the change and after every attempt;
                      QA may not approve an attempt that breaks a passing test. It is test_command of
                      .github/magis.yml, and wins over the file's (whose setup_command still runs first)
  --candidates N      candidate changes per Developer attempt (1–8), over the config's \`candidates\`
  --apply             also write the change into the checkout
  --no-sandbox        run the repository's setup and test commands as you, outside bubblewrap

${MEMORY_HELP}

${renderSettingsHelp("cli")}`;

/** `magis resolve`: an issue in, a reviewed patch, report and trace out. */
export const resolveCommand: Command = {
  name: "resolve",
  usage,
  run: async (args, io) => {
    const { values } = parseFlags(args, {
      repo: { type: "string" },
      "issue-file": { type: "string" },
      "hints-file": { type: "string" },
      out: { type: "string" },
      "test-command": { type: "string" },
      candidates: { type: "string" },
      apply: { type: "boolean", default: false },
      "no-sandbox": { type: "boolean", default: false },
    });
    for (const flag of ["repo", "issue-file", "out"] as const) if (!values[flag]) throw new UsageError(`--${flag} is required`);
    const testCommand = values["test-command"];
    if (testCommand !== undefined && testCommand.trim() === "")
      throw new UsageError(`--test-command is empty; give the command that runs the checkout's tests, such as --test-command "npm test"`);
    const { repo, config } = openCheckout(io, values.repo!, {
      ...(testCommand === undefined ? {} : { test_command: testCommand }),
      ...(values.candidates === undefined ? {} : { candidates: wholeNumberFlag("--candidates", values.candidates, 1, 8) }),
    });
    const history = localHistory(io, { repo, config });
    const out = path.resolve(io.cwd, values.out!);
    if (isInside(out, repo)) throw new UsageError(`--out ${values.out} is inside --repo; choose a folder outside the checkout so it stays untouched`);
    const issue = readIssueFiles({ cwd: io.cwd, issueFile: values["issue-file"]!, hintsFile: values["hints-file"] });
    const settings = readSettings(io.env, { door: "cli" });
    // As in the App: the run stops where it is at job_timeout_minutes, or when the process is asked to stop.
    const limit = startTimeLimit(config.job_timeout_minutes, io.stopSignal?.());
    const llm = makeModel(config, settings, limit.signal);
    // On the user's own machine, at their command: the repository's tests run in a copy of the checkout, in bubblewrap
    // unless --no-sandbox says to run them in the user's own environment (less its credentials).
    const commands = localCommandPolicy(settings, io.env, values["no-sandbox"]!, { root: repo, cwd: io.cwd, stderr: io.stderr });
    const store = await openMemoryStore(settings);
    fs.mkdirSync(out, { recursive: true });
    // The session the App would show on its page, written as one file whichever way the run ends.
    const session = startLocalSession({
      job: { id: 0, jobKind: "cli", repository: repo, number: null, title: issue.title },
      trace: () => llm.trace,
      secrets: [settings.model.apiKey],
      prices: settings.model.prices,
      now: Date.now,
    });
    const writeSession = async (outcome: SessionOutcome) => fs.writeFileSync(path.join(out, "session.html"), await session.end(outcome));
    let result: ResolveResult | QuestionResult;
    try {
      // Every step ends in the pipeline's own cleanup (copies, language servers, sandboxed commands) before this returns.
      result = await withLanguageServers(
        {
          root: repo,
          repoId: repo,
          config,
          llm,
          now: () => Date.now(),
          onProgress: (event) => {
            session.onProgress(event);
            io.stderr(describeProgress(event));
          },
          commands: session.commands(commands.allowed ? { ...commands, signal: limit.signal } : commands),
          index: checkoutIndex(store.memory, config),
          ...(history ? { history } : {}),
        },
        (ctx) => resolveIssue(ctx, issue, store.memory),
      );
      // A stop that came as the run ended: the result may lack what the aborted calls would have given.
      limit.signal.throwIfAborted();
    } catch (error) {
      await writeTraceJsonl(llm.trace, path.join(out, "trace.jsonl"));
      const trace = `Model calls are in ${path.join(out, "trace.jsonl")}, the session in ${path.join(out, "session.html")}.`;
      if (limit.signal.aborted) {
        await writeSession({ status: "cancelled", detail: describeStop(limit.signal.reason) });
        io.stderr(`magis resolve: no patch. ${describeStop(limit.signal.reason)} ${trace}\n`);
        return 1;
      }
      const stage = error instanceof StageError ? error.stage : "crash";
      await writeSession({ status: "failed", detail: error instanceof StageError ? `${error.message} ${error.nextStep}` : String(error), stage });
      if (!(error instanceof StageError)) throw error;
      io.stderr(`magis resolve: no patch. The ${error.stage} stage failed: ${endSentence(error.message)} Next: ${endSentence(error.nextStep)} ${trace}\n`);
      return 1;
    } finally {
      limit.clear();
      await store.close();
    }

    if ("question" in result) {
      await writeTraceJsonl(llm.trace, path.join(out, "trace.jsonl"));
      await writeSession({ status: "asked", detail: result.question.trim() });
      io.stderr(
        `magis resolve: no patch. The Manager cannot act on the issue as written and asks: ${result.question.trim()} Next: answer it in --hints-file and run again.\n`,
      );
      return 1;
    }
    fs.writeFileSync(path.join(out, "patch.diff"), result.patch);
    fs.writeFileSync(path.join(out, "report.md"), renderReport(result, { title: issue.title, prices: settings.model.prices }));
    await writeTraceJsonl(llm.trace, path.join(out, "trace.jsonl"));
    const changed = `${result.changes.length} file${result.changes.length === 1 ? "" : "s"} changed: ${result.changes.map((c) => c.path).join(", ")}`;
    await writeSession({ status: "succeeded", detail: changed });
    // Each file is written in the encoding it was read in: untouched bytes stay as they were.
    if (values.apply)
      for (const change of result.changes) fs.writeFileSync(resolveInside(repo, change.path).absolute, encodeFile(change.after, change.encoding));
    io.stdout(
      [
        changed,
        `patch:  ${path.join(out, "patch.diff")}${values.apply ? " (applied to the checkout)" : ` (apply with: git -C ${repo} apply ${path.join(out, "patch.diff")})`}`,
        `report: ${path.join(out, "report.md")}`,
        `trace:  ${path.join(out, "trace.jsonl")}`,
        `session: ${path.join(out, "session.html")}`,
        "",
      ].join("\n"),
    );
    return 0;
  },
};

/** Why the run stopped before its end, and what to do: the time limit, or a signal to the process. */
function describeStop(reason: unknown): string {
  if (reason instanceof TimeLimitError)
    return `${reason.message}. Next: raise job_timeout_minutes (at most 240) in the checkout's .github/magis.yml, or narrow the issue with --hints-file.`;
  return `${endSentence(reason instanceof Error ? reason.message : String(reason))} What it started (its copy of the checkout, language servers, sandboxed commands) was stopped and removed.`;
}

function isInside(child: string, parent: string): boolean {
  // `parent` is a real path; so must `child` be, or a link (`--out link-to-repo/out`) would hide where it writes.
  const relative = path.relative(parent, realPathOfNearest(child));
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** The real path of `target`, through its deepest existing ancestor (the output folder may not exist yet). */
function realPathOfNearest(target: string): string {
  let probe = target;
  while (!fs.existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  return path.join(fs.realpathSync(probe), path.relative(probe, target));
}

/** How many lines of a failed setup's or test run's output the progress shows. */
const CLI_TAIL_LINES = 15;

/** One stderr line per finished stage or attempt (with the end of the output that says why tests were set aside). */
export function describeProgress(event: ProgressEvent): string {
  switch (event.stage) {
    case "located": {
      const kept = event.files.filter((f) => f.kept !== false).length;
      return `located ${event.files.length} file(s): ${kept} kept, ${event.files.length - kept} dropped\n`;
    }
    case "tasks":
      return `Manager defined ${event.tasks.length} task(s): ${event.tasks.map((t) => t.path).join(", ")}\n`;
    case "team":
      return `team formed: ${event.developers.map((d) => `${d.name} (${d.path})`).join(", ")}\n`;
    case "kickoff":
      return `kick-off meeting held: ${event.transcript.length} turns\n`;
    case "plan":
      return `plan: ${event.plan.steps.map((s, i) => `step ${i + 1}: ${s.join(" + ")}`).join("; ")}${event.plan.note ? ` (${event.plan.note})` : ""}\n`;
    case "tests": {
      const line = `${describeTestsReport(event.tests).replace(/\*\*/g, "")}\n`;
      const shown = runToShow(event.tests);
      if (!shown) return line;
      const tail = shown.run.tail.trimEnd().split("\n").slice(-CLI_TAIL_LINES);
      return `${line}  The end of ${shown.label.replace(/`/g, "")}:\n${tail.map((text) => `    ${text}`).join("\n")}\n`;
    }
    case "reproduction":
      return `${describeReproduction(event.reproduction).replace(/\*\*/g, "")}\n`;
    case "attempt": {
      const a = event.attempt;
      const verdict = a.error
        ? `refused: ${a.error.replace(/\s*\n\s*/g, " ")}`
        : a.review?.approved
          ? "approved by QA"
          : `QA asked for changes: ${(a.review?.comment ?? "").replace(/\s*\n\s*/g, " ")}`;
      const runs = [
        ...(a.candidates ? [summarizeCandidates(a.candidates)] : []),
        ...(a.tests ? [`tests: ${describeAttemptTests(a.tests)}`] : []),
        ...(a.reproduction ? [`reproduction: ${describeAttemptReproduction(a)}`] : []),
      ];
      const tests = runs.length > 0 ? ` (${runs.join("; ")})` : "";
      return `${event.path}: attempt ${a.number}${tests} ${verdict}\n`;
    }
    case "task-done":
      return `${event.outcome.path}: done, ${event.outcome.approved ? "approved" : "not approved"}, ${event.outcome.kept ? "kept" : "dropped"}\n`;
    case "done":
      return `done: ${event.result.changes.length} file(s) changed\n`;
  }
}
