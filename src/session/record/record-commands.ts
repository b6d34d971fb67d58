import type { Sandbox, SandboxRun } from "../../sandbox/sandbox.js";
import type { SessionEntry } from "../types.js";
import { tailText } from "./bound-text.js";

/** How much of a command's output its entry keeps, from the end (where a failure says what failed). */
export const COMMAND_TAIL_CHARS = 8_000;

/**
 * The same sandbox, with each command it runs recorded as a `command` entry once it ends: what held it, the command, why
 * it ran (when the caller's options say, as `purpose`), how it ended, how long it took and its output's tail. It
 * answers exactly as `sandbox` does (the same runs, the same properties, `run` never rejects where the sandbox's does
 * not), and a recording that fails costs the command nothing.
 */
export function recordingSandbox(sandbox: Sandbox, record: (entry: SessionEntry) => void): Sandbox {
  const recorded: Sandbox = Object.create(sandbox) as Sandbox;
  const run = async (command: string, options: SandboxRun & { purpose?: string }) => {
    const done = await sandbox.run(command, options);
    try {
      record({
        kind: "command",
        data: {
          sandbox: sandbox.label,
          command,
          ...(options.purpose !== undefined && { purpose: options.purpose }),
          outcome: done.outcome,
          exitCode: done.exitCode,
          durationMs: Math.round(done.durationMs),
          tail: tailText([done.output, done.error ?? ""].filter((text) => text !== "").join("\n"), COMMAND_TAIL_CHARS),
        },
      });
    } catch {
      // The session is for reading about the job; the command's run is the job's.
    }
    return done;
  };
  Object.defineProperty(recorded, "run", { value: run, enumerable: true });
  return recorded;
}
