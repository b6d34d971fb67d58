import { spawn } from "node:child_process";
import { TailBuffer } from "../lib/tail-buffer.js";
import { maskInherited } from "./mask-inherited-fds.js";

/** How one run of a repository's command ended, with the end of what it printed. */
export interface CommandRun {
  /** `passed`: exit 0; `failed`: another exit status; `timed-out`: killed at the timeout; `error`: it could not run or was killed otherwise. */
  outcome: "passed" | "failed" | "timed-out" | "error";
  exitCode: number | null;
  /** The last `keepBytes` of stdout and stderr, interleaved as they arrived (raw: not yet cleaned or redacted). */
  output: string;
  /** Every byte it printed, kept or not. */
  outputBytes: number;
  durationMs: number;
  /** Why it did not run to an exit status (spawn error, killed by a signal), for `error`. */
  error?: string;
}

/** Where and how long a command may run. */
export interface CommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Aborting kills the command's whole process group (the job was cancelled or ran out of time). */
  signal?: AbortSignal;
  /** How much of the output is kept, from its end (default 512 KiB): a command that floods its output costs no more. */
  keepBytes?: number;
  /**
   * How the program is stopped at the timeout or a cancel, before its group is killed: for a program whose processes
   * would outlive it for a moment if it were killed first (a sandbox's), a way to end them through it, so that it
   * exits only once they are gone. Its process group is killed STOP_GRACE_MS later if it has not exited by then.
   * Absent: the group is killed at once.
   */
  stopFirst?: (pid: number) => void;
}

// After the command exits, how long its output pipes may stay open (a daemon it left behind holds them) before the
// group is killed and the run ends anyway.
const DRAIN_MS = 2_000;

// How long a program stopped through stopFirst may take to exit before its group is killed anyway.
const STOP_GRACE_MS = 5_000;

/**
 * Runs a repository's shell command (a `test_command`) in a process group of its own, with stdin closed, so that a
 * command that waits for input reads end-of-file, one that hangs is killed with everything it started at the timeout,
 * and one that floods its output keeps only its tail in memory. No descriptor of the bot's above 2 reaches it (see
 * maskInherited). Never rejects: a failure to start is an `error` run.
 */
export function runCommand(command: string, options: CommandOptions): Promise<CommandRun> {
  return runProgram(["/bin/sh", "-c", command], options);
}

/** Runs a program (its path, then its arguments) as runCommand runs a shell command: the sandboxes start theirs so. */
export function runProgram(argv: readonly [string, ...string[]], options: CommandOptions): Promise<CommandRun> {
  const keep = options.keepBytes ?? 512 * 1024;
  const started = performance.now();
  return new Promise((resolve) => {
    const output = new TailBuffer(keep);
    let ending: CommandRun["outcome"] | null = null;
    let error: string | undefined;
    let exitCode: number | null = null;
    let finished = false;
    // None of the descriptors the bot holds reaches the command: only its output pipes.
    const child = maskInherited(["ignore", "pipe", "pipe"], (stdio) =>
      spawn(argv[0], argv.slice(1), { cwd: options.cwd, env: options.env, detached: true, stdio }),
    );
    const [stdout, stderr] = [child.stdout!, child.stderr!];
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    };
    let grace: NodeJS.Timeout | undefined;
    const stop = () => {
      if (!options.stopFirst || child.pid === undefined) return killGroup();
      if (grace) return;
      options.stopFirst(child.pid);
      grace = setTimeout(killGroup, STOP_GRACE_MS);
    };
    const take = (chunk: Buffer) => output.push(chunk);
    stdout.on("data", take);
    stderr.on("data", take);
    const timer = setTimeout(() => {
      ending ??= "timed-out";
      stop();
    }, options.timeoutMs);
    const onAbort = () => {
      ending ??= "error";
      error ??= "stopped: the job was cancelled or ran out of time";
      stop();
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    let drain: NodeJS.Timeout | undefined;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(drain);
      clearTimeout(grace);
      options.signal?.removeEventListener("abort", onAbort);
      // Whatever the command started in the background goes with it; one that left the group (setsid) keeps running,
      // but its pipes are closed here, so it holds nothing of this process.
      killGroup();
      stdout.destroy();
      stderr.destroy();
      const outcome = ending ?? (exitCode === 0 ? "passed" : exitCode === null ? "error" : "failed");
      const text = output.text(false);
      resolve({ outcome, exitCode, output: text, outputBytes: output.total, durationMs: Math.round(performance.now() - started), ...(error ? { error } : {}) });
    };
    child.on("error", (cause) => {
      ending ??= "error";
      error ??= `it could not start: ${cause.message}`;
      finish();
    });
    child.on("exit", (code, signal) => {
      exitCode = code;
      if (code === null && ending === null) {
        ending = "error";
        error = `it was killed by ${signal ?? "a signal"}`;
      }
      drain = setTimeout(finish, DRAIN_MS);
    });
    child.on("close", finish);
  });
}
