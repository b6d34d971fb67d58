import crypto from "node:crypto";
import path from "node:path";
import { encodeFile, type FileEncoding } from "../../edit/file-encoding.js";
import { writeInside } from "../../lib/write-inside.js";
import type { EnvironmentReport, TestRun } from "../types.js";
import type { SetUpState } from "./keep-set-up-state.js";

/** A changed file as the commands see it: its full new text, written in its own encoding. */
export interface ChangedFile {
  path: string;
  after: string;
  encoding: FileEncoding;
}

/**
 * A copy of the checkout, set up once, in which the repository's commands run inside the door's sandbox: the tests, and
 * the reproduction of the issue. Each run writes its files into the copy, and afterwards the whole copy (and the
 * commands' home) is put back as the setup left it, so that no run can change what a later one sees.
 */
export interface Workbench {
  /** What holds the commands: a short label and the sandbox's description. */
  readonly sandbox: { label: string; description: string };
  /** The environment the commands run in, when the repository declares one (as it was when it became ready). */
  readonly environment?: EnvironmentReport;
  /**
   * Runs `command` with these files written (changed source files, a reproduction script), one run at a time; the same
   * command with the same files runs only once. Never rejects: a copy that can no longer be trusted gives `error` runs.
   */
  run(command: string, files: readonly ChangedFile[]): Promise<TestRun>;
  /**
   * The host's copy, in the set-up state, of a file at a path the commands see (`/workspace/…`: the checkout's copy;
   * `/tmp/home/…`: their home); null for a path outside those. The set-up state holds what the setup wrote, links
   * included: whoever reads it must not follow a link out of it.
   */
  hostPath(inside: string): string | null;
  /** The environment's report once keeping it for later jobs has ended (at once when there was nothing to keep). */
  settled(): Promise<EnvironmentReport | undefined>;
  /** Removes the copy (once keeping it for later jobs has ended). */
  dispose(): void;
}

/** Where the commands see the copy and their home (bubblewrap's and the container's layout). */
const WORKSPACE = "/workspace";
const SANDBOX_HOME = "/tmp/home";

/** What a workbench is made of: the copy the commands run in and their home, the set-up state of both, and how one runs there. */
export interface WorkbenchParts {
  /** What puts the copy and the home back after each run. */
  states: SetUpState[];
  /** The copy the commands run in. */
  dir: string;
  /** The copy's set-up state on the host (what `states` restores from), and the home's. */
  kept: { dir: string; home: string };
  run: (command: string) => Promise<TestRun>;
  dispose: () => void;
  sandbox: Workbench["sandbox"];
  environment?: Workbench["environment"];
  settled: Workbench["settled"];
}

/** The workbench over its parts: one run at a time, each from the set-up state, each command with the same files run once. */
export function makeWorkbench({ states, dir, kept, run, dispose, sandbox, environment, settled }: WorkbenchParts): Workbench {
  const seen = new Map<string, Promise<TestRun>>();
  let broken: string | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    sandbox,
    ...(environment ? { environment } : {}),
    settled,
    dispose,
    hostPath: (inside) => hostPath(inside, dir, kept),
    run(command, files) {
      const key = keyOf(command, files);
      let result = seen.get(key);
      if (!result) {
        // One run at a time: the copy holds one set of files, and two test suites at once would fight for the machine.
        result = queue.then(async () => {
          if (broken) return brokenRun(broken);
          try {
            for (const state of states) await state.settled();
            writeFiles(dir, files);
            try {
              return await run(command);
            } finally {
              for (const state of states) state.restore();
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

/**
 * The file of the set-up state at a path the commands see: under /workspace (or the copy's own folder, where the
 * commands run on the host) in the kept copy, under /tmp/home in the kept home; null for any other path or one that
 * climbs out with `..`. Where the commands run uncontained their HOME is the host's, which is not kept: null.
 */
function hostPath(inside: string, dir: string, kept: { dir: string; home: string }): string | null {
  if (!path.posix.isAbsolute(inside)) return null;
  const clean = path.posix.normalize(inside);
  for (const [seen, host] of [
    [WORKSPACE, kept.dir],
    [dir, kept.dir],
    [SANDBOX_HOME, kept.home],
  ] as const) {
    if (clean === seen) return host;
    if (clean.startsWith(`${seen}/`)) return path.join(host, ...clean.slice(seen.length + 1).split("/"));
  }
  return null;
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
