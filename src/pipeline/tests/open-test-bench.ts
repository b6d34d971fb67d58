import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cleanOutput } from "../../lib/clean-text.js";
import { encodeFile, type FileEncoding } from "../../edit/file-encoding.js";
import { redactSecrets } from "../../lib/redact-secrets.js";
import { fromLineStart } from "../../lib/tail-buffer.js";
import { resolveInside } from "../../lib/safe-path.js";
import type { StageContext, TestRun, TestsReport, TestVerdict } from "../types.js";
import { compareTestRuns } from "./compare-test-runs.js";
import { describeExit } from "./describe-test-verdict.js";
import { readTestOutput } from "../../lib/read-test-output.js";
import type { CommandRun } from "../../sandbox/run-command.js";

/** A changed file as the tests see it: its full new text, written in its own encoding. */
export interface ChangedFile {
  path: string;
  after: string;
  encoding: FileEncoding;
}

/** The repository's tests, ready to judge changes: set up once, run once on the untouched checkout. */
export interface TestBench {
  /** The command that runs the tests. */
  readonly command: string;
  /** The run on the untouched checkout, which every later run is compared with. */
  readonly before: TestRun;
  /** Runs the tests with these files changed, one run at a time; the same set of changes is run only once. */
  check(changes: readonly ChangedFile[]): Promise<TestVerdict>;
  /** Removes the copy the tests ran in. */
  dispose(): void;
}

/** The end of a run's output kept for the report and the QA Engineer. */
const TAIL_CHARS = 4_000;

/**
 * Copies the checkout to a scratch folder, runs `setup_command` there and then `test_command` on the untouched files.
 * Returns the report so far and, when the tests ran to an end, the bench that judges changes. When `test_command` is
 * set but may not run here, or the setup failed, or the first run did not finish, the report says why and there is no
 * bench: the run goes on without tests. Null when no `test_command` is set.
 */
export async function openTestBench(ctx: StageContext): Promise<{ report: TestsReport; bench: TestBench | null } | null> {
  const { test_command: command, setup_command: setup } = ctx.config;
  if (!command) return null;
  const report: TestsReport = { command, ...(setup ? { setup } : {}) };
  const policy = ctx.commands ?? { allowed: false, why: "the caller did not allow running the repository's commands" };
  if (!policy.allowed) return { report: { ...report, skipped: policy.why }, bench: null };
  const { sandbox } = policy;
  report.sandbox = { label: sandbox.label, description: sandbox.description };

  // A folder of our own, made afresh (mkdtemp), which the copy goes into: no other user can take its name meanwhile.
  const own = policy.scratchDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "magis-tests-"));
  if (policy.scratchDir) {
    fs.rmSync(own, { recursive: true, force: true });
    fs.mkdirSync(own, { mode: 0o700 });
  }
  const dir = path.join(own, "repo");
  const dispose = () => fs.rmSync(own, { recursive: true, force: true });
  try {
    fs.cpSync(ctx.root, dir, { recursive: true, verbatimSymlinks: true });
    sandbox.prepare(dir);
    const timeoutMs = ctx.config.test_timeout_seconds * 1000;
    const env = ctx.config.test_env;
    const run = async (text: string, network = false): Promise<TestRun> =>
      await describeRun(await sandbox.run(text, { dir, env, timeoutMs, signal: policy.signal, network }), policy.secrets ?? []);
    if (setup) {
      const setupRun = await run(setup, sandbox.setupNetwork);
      if (setupRun.outcome !== "passed") {
        dispose();
        return { report: { ...report, setupRun, skipped: `the setup command ${describeExit(setupRun, ctx.config.test_timeout_seconds)}` }, bench: null };
      }
    }
    const before = await run(command);
    if (before.outcome === "timed-out" || before.outcome === "error") {
      dispose();
      return {
        report: { ...report, before, skipped: `the tests ${describeExit(before, ctx.config.test_timeout_seconds)} on the untouched checkout` },
        bench: null,
      };
    }
    return { report: { ...report, before }, bench: makeBench({ root: ctx.root, dir, command, before, runTests: () => run(command), dispose }) };
  } catch (error) {
    dispose();
    throw error;
  }
}

/** What a bench is made of: the checkout, the copy the tests run in, and the run every later run is compared with. */
interface BenchParts {
  /** The checkout, whose files restore the copy after each run. */
  root: string;
  /** The copy the tests run in. */
  dir: string;
  command: string;
  /** The run on the untouched copy. */
  before: TestRun;
  /** Runs the tests in the copy. */
  runTests: () => Promise<TestRun>;
  /** Removes the copy. */
  dispose: () => void;
}

function makeBench({ root, dir, command, before, runTests, dispose }: BenchParts): TestBench {
  const seen = new Map<string, Promise<TestVerdict>>();
  let broken: TestVerdict | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    command,
    before,
    dispose,
    check(changes) {
      const key = keyOf(changes);
      let verdict = seen.get(key);
      if (!verdict) {
        // One run at a time: the copy holds one set of changes, and two test suites at once would fight for the machine.
        verdict = queue.then(async () => {
          if (broken) return broken;
          try {
            writeChanges(dir, changes);
            try {
              return compareTestRuns(before, await runTests());
            } finally {
              restoreOriginals(root, dir, changes);
            }
          } catch (error) {
            // The copy no longer matches the checkout (a test run removed a folder, the disk is full): no later run can
            // be trusted, so every check from here on says the tests could not run, and nothing is refused for it.
            const reason = `the copy the tests run in could not be prepared (${error instanceof Error ? error.message : String(error)})`;
            broken = {
              run: { ...before, outcome: "error", exitCode: null, counts: null, failures: [], tail: "", durationMs: 0, error: reason },
              newFailures: [],
              fixed: [],
            };
            return broken;
          }
        });
        queue = verdict.catch(() => undefined);
        seen.set(key, verdict);
      }
      return verdict;
    },
  };
}

function keyOf(changes: readonly ChangedFile[]): string {
  const hash = crypto.createHash("sha256");
  for (const change of [...changes].sort((a, b) => a.path.localeCompare(b.path))) hash.update(`${change.path}\0${change.encoding}\0${change.after}\0`);
  return hash.digest("hex");
}

function writeChanges(dir: string, changes: readonly ChangedFile[]): void {
  for (const change of changes) fs.writeFileSync(resolveInside(dir, change.path).absolute, encodeFile(change.after, change.encoding));
}

function restoreOriginals(root: string, dir: string, changes: readonly ChangedFile[]): void {
  for (const change of changes) {
    const original = resolveInside(root, change.path).absolute;
    const copy = resolveInside(dir, change.path).absolute;
    if (fs.existsSync(original)) fs.copyFileSync(original, copy);
    else fs.rmSync(copy, { force: true });
  }
}

/** A command's run as the report keeps it: counts and failing tests read from the whole kept output, a short clean tail. */
async function describeRun(run: CommandRun, secrets: readonly (string | undefined)[]): Promise<TestRun> {
  const { counts, failures } = readTestOutput(run.output);
  const clean = await cleanOutput(run.output, secrets);
  const { outcome, exitCode, durationMs, error } = run;
  return {
    outcome,
    exitCode,
    counts,
    failures: failures.map((name) => redactSecrets(name, secrets)),
    tail: tailOf(clean),
    durationMs,
    ...(error ? { error } : {}),
  };
}

/** The last TAIL_CHARS of the text, from a line's start when there is one in reach. */
function tailOf(text: string): string {
  return text.length <= TAIL_CHARS ? text : `…\n${fromLineStart(text.slice(-TAIL_CHARS))}`;
}
