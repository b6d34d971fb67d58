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
 */
export async function runAsProcess(name: string, run: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await run();
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

/** One subcommand of `magis`. */
export interface Command {
  name: string;
  summary: string;
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
