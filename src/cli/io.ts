import os from "node:os";
import { UsageError } from "../lib/usage-error.js";
/** Where a command writes; tests pass their own to read what was printed. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Whether stderr is a terminal (a command may then draw a progress bar); absent: it is not. */
  isTTY?: boolean;
  /** The clock; absent: Date.now. Tests pass their own to get outputs that do not depend on time. */
  now?: () => number;
  /**
   * Takes SIGTERM and SIGINT over for the command and returns the signal they abort (with a StopRequestedError): the
   * command then stops its job where it is, removes what it made (copies, language servers, sandboxed commands) and
   * returns. A command that never calls it (serve) keeps the process's own handling. Absent: nothing stops it.
   */
  stopSignal?: () => AbortSignal;
}

/** The process was asked to stop (SIGTERM from `timeout`, a CI runner or a deployment; SIGINT from Ctrl-C). */
export class StopRequestedError extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`The run was stopped by ${signal}`);
  }
}

/** The process's own streams and environment. */
export const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  isTTY: process.stderr.isTTY === true,
};

/**
 * Runs a door as this whole process: the exit code it returns becomes the process's; an error nothing caught is printed
 * as one line, `<name>: <message>`, with exit code 1 (bin/magis.js for the command line, src/action.ts for the Action).
 * Once the door has taken its stop signal (CliIo.stopSignal), SIGTERM or SIGINT aborts it, so that the door stops its
 * job and removes what it made, and the process then exits as that signal's code (128 + its number: 143, 130) whatever
 * `run` returned; another one, a second or more later, exits at once.
 */
export async function runAsProcess(name: string, run: (stopSignal: () => AbortSignal) => Promise<number>): Promise<void> {
  const stop = new AbortController();
  let stoppedAt = 0;
  let listening = false;
  const onSignal = (signal: NodeJS.Signals) => {
    // Ctrl-C reaches every process of the terminal's group, and wrappers (npm, tsx) pass it on too: a repeat within a
    // second is the same keystroke.
    if (stop.signal.aborted && Date.now() - stoppedAt < REPEAT_MS) return;
    if (stop.signal.aborted) {
      process.stderr.write(`${name}: ${signal} again; exiting without waiting for the run to clean up\n`);
      process.exit(signalExitCode(signal));
    }
    process.stderr.write(`${name}: ${signal} received; stopping the run and removing what it made (${signal} again exits at once)\n`);
    stoppedAt = Date.now();
    stop.abort(new StopRequestedError(signal));
  };
  const stopSignal = () => {
    if (!listening) {
      process.on("SIGTERM", onSignal);
      process.on("SIGINT", onSignal);
      listening = true;
    }
    return stop.signal;
  };
  try {
    process.exitCode = await run(stopSignal);
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
  // Stopped: the run has cleaned up; whatever a command that does not listen left running (a server) ends with it.
  if (stop.signal.aborted) process.exit(signalExitCode((stop.signal.reason as StopRequestedError).signal));
}

/** How soon after a stop signal the same signal counts as the same request. */
const REPEAT_MS = 1_000;

/** The exit code of a process ended by `signal`, as a shell reports it. */
function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + os.constants.signals[signal];
}

/** One subcommand of `magis` (its summary for `magis --help` is in command-table.ts, which loads it). */
export interface Command {
  name: string;
  usage: string;
  run: (args: string[], io: CliIo) => Promise<number>;
}

import { parseArgs, type ParseArgsConfig } from "node:util";
import { parseWholeNumber } from "../lib/env-number.js";

/** node:util parseArgs in strict mode, with its errors turned into one-line UsageErrors. */
export function parseFlags<T extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split("\n")[0]! : String(error));
  }
}

/** The whole number a flag was given (digits only, as settings are read: see parseWholeNumber), from `min` to `max`. */
export function wholeNumberFlag(flag: string, raw: string, min: number, max: number): number {
  const n = parseWholeNumber(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, not '${raw}'`);
  return n;
}
