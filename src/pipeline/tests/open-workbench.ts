import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cleanOutput } from "../../lib/clean-text.js";
import { encodeFile, type FileEncoding } from "../../edit/file-encoding.js";
import { redactSecrets } from "../../lib/redact-secrets.js";
import { endOfText } from "../../lib/tail-buffer.js";
import { writeInside } from "../../lib/write-inside.js";
import { readTestOutput } from "../../lib/read-test-output.js";
import type { CommandRun, SetupNetwork } from "../../sandbox/index.js";
import type { StageContext, TestRun } from "../types.js";
import { describeExit } from "./describe-test-verdict.js";
import { keepSetUpState, type SetUpState } from "./keep-set-up-state.js";
import { readEnvironmentFailure } from "./read-environment-failure.js";

/** A changed file as the commands see it: its full new text, written in its own encoding. */
export interface ChangedFile {
  path: string;
  after: string;
  encoding: FileEncoding;
}

/**
 * A copy of the checkout, set up once, in which the repository's commands run inside the door's sandbox: the tests, and
 * the reproduction of the issue. Each run writes its files into the copy, and afterwards the whole copy is put back as
 * the setup left it, so that no run can change what a later one sees.
 */
export interface Workbench {
  /** What holds the commands: a short label and the sandbox's description. */
  readonly sandbox: { label: string; description: string };
  /**
   * Runs `command` with these files written (changed source files, a reproduction script), one run at a time; the same
   * command with the same files runs only once. Never rejects: a copy that can no longer be trusted gives `error` runs.
   */
  run(command: string, files: readonly ChangedFile[]): Promise<TestRun>;
  /** Removes the copy. */
  dispose(): void;
}

/** A workbench, or why there is none (with the setup command's run when that is what failed). */
export type OpenedWorkbench =
  { ok: true; workbench: Workbench; setupRun?: TestRun } | { ok: false; why: string; setupRun?: TestRun; sandbox?: { label: string; description: string } };

/** The end of a run's output kept for the report and the agents. */
const TAIL_CHARS = 4_000;

/**
 * Copies the checkout to a scratch folder and runs `setup_command` there, inside the sandbox the door chose. Returns
 * why not when the repository's commands may not run here or the setup failed; throws only when the copy cannot be made.
 */
export async function openWorkbench(ctx: StageContext): Promise<OpenedWorkbench> {
  const policy = ctx.commands ?? { allowed: false, why: "the caller did not allow running the repository's commands" };
  if (!policy.allowed) return { ok: false, why: policy.why };
  const { sandbox } = policy;
  const held = { label: sandbox.label, description: sandbox.description };
  const { setup_command: setup, test_timeout_seconds: seconds, test_env: env } = ctx.config;

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
    const run = async (text: string, network?: SetupNetwork): Promise<TestRun> =>
      await describeRun(await sandbox.run(text, { dir, env, timeoutMs: seconds * 1000, signal: policy.signal, network }), policy.secrets ?? []);
    let setupRun: TestRun | undefined;
    if (setup) {
      setupRun = await run(setup, sandbox.setupNetwork ? { socket: "" } : undefined);
      if (setupRun.outcome !== "passed") {
        dispose();
        return {
          ok: false,
          why: `the setup command ${describeExit(setupRun, seconds)}${describeSetupGap(setupRun)}`,
          setupRun,
          sandbox: held,
        };
      }
    }
    let state: SetUpState;
    try {
      state = keepSetUpState(dir, path.join(own, "set-up"));
    } catch (error) {
      dispose();
      const why = `the copy's set-up state could not be kept (${error instanceof Error ? error.message : String(error)})`;
      return { ok: false, why, ...(setupRun ? { setupRun } : {}), sandbox: held };
    }
    const workbench = makeWorkbench({ state, dir, run, dispose, sandbox: held });
    return { ok: true, workbench, ...(setupRun ? { setupRun } : {}) };
  } catch (error) {
    dispose();
    throw error;
  }
}

/** What a failed setup lacked, when its output says (a command not found): "; the sandbox lacks the command `pip` (…)". */
function describeSetupGap(run: TestRun): string {
  const gap = run.outcome === "failed" ? readEnvironmentFailure(run.tail) : null;
  return gap ? `; the sandbox lacks ${gap.missing} (\`${gap.line}\`)` : "";
}

/** What a workbench is made of: the copy the commands run in, its set-up state, and how one runs there. */
interface WorkbenchParts {
  /** What puts the copy back after each run. */
  state: SetUpState;
  /** The copy the commands run in. */
  dir: string;
  run: (command: string) => Promise<TestRun>;
  dispose: () => void;
  sandbox: { label: string; description: string };
}

function makeWorkbench({ state, dir, run, dispose, sandbox }: WorkbenchParts): Workbench {
  const seen = new Map<string, Promise<TestRun>>();
  let broken: string | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    sandbox,
    dispose,
    run(command, files) {
      const key = keyOf(command, files);
      let result = seen.get(key);
      if (!result) {
        // One run at a time: the copy holds one set of files, and two test suites at once would fight for the machine.
        result = queue.then(async () => {
          if (broken) return brokenRun(broken);
          try {
            await state.settled();
            writeFiles(dir, files);
            try {
              return await run(command);
            } finally {
              state.restore();
            }
          } catch (error) {
            // The copy could not be put back as the setup left it (the disk is full, a file it cannot remove): no later
            // run can be trusted, so every run from here on says it could not run, and nothing is refused for it.
            broken = `the copy the commands run in could not be prepared (${error instanceof Error ? error.message : String(error)})`;
            return brokenRun(broken);
          }
        });
        queue = result.catch(() => undefined);
        seen.set(key, result);
      }
      return result;
    },
  };
}

// The runs a broken copy gave: they say nothing of the files they were given.
const brokenRuns = new WeakSet<TestRun>();

function brokenRun(reason: string): TestRun {
  const run: TestRun = { outcome: "error", exitCode: null, counts: null, failures: [], tail: "", durationMs: 0, error: reason };
  brokenRuns.add(run);
  return run;
}

/** Whether the run could not happen because the copy could no longer be trusted (not because of the files it was given). */
export function isBrokenRun(run: TestRun): boolean {
  return brokenRuns.has(run);
}

function keyOf(command: string, files: readonly ChangedFile[]): string {
  const hash = crypto.createHash("sha256").update(`${command}\0`);
  for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) hash.update(`${file.path}\0${file.encoding}\0${file.after}\0`);
  return hash.digest("hex");
}

/** Writes a run's files into the copy: no link the repository's commands planted there is followed (the bot may be root). */
function writeFiles(dir: string, files: readonly ChangedFile[]): void {
  for (const file of files) writeInside(dir, file.path, encodeFile(file.after, file.encoding));
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
    tail: endOfText(clean, TAIL_CHARS),
    durationMs,
    ...(error ? { error } : {}),
  };
}
