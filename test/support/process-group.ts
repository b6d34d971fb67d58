import { spawn } from "node:child_process";

/** The process groups started here that are still running: killed if this process exits without stopping them. */
const running = new Set<number>();
let killedAtExit = false;

function killAtExit(): void {
  if (killedAtExit) return;
  killedAtExit = true;
  process.on("exit", () => {
    for (const group of running) signalGroup(group, "SIGKILL");
  });
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // The group is gone already.
  }
}

/** A long-running command in a process group of its own. */
export interface ProcessGroup {
  /** Its pid, which is also its process group's id. */
  pid: number;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves once it has exited (its code, or the signal that ended it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether it has exited. */
  gone(): boolean;
  /** Sends `signal` to its whole process group (SIGKILL: the process and all it started die at once). */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM to its group, SIGKILL after `graceMs` if it has not exited; resolves once it has, its group killed. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `command` in a process group of its own with exactly `env`, collecting its output. A group still running
 * when this process exits is killed then, so a failed test leaves nothing behind.
 */
export function startProcessGroup(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): ProcessGroup {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  killAtExit();
  running.add(child.pid!);
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  let gone = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("error", (error) => {
      out += `${command}: ${error.message}\n`;
      resolve({ code: null, signal: null });
    });
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  void exited.then(() => {
    gone = true;
    running.delete(child.pid!);
  });
  const kill = (signal: NodeJS.Signals) => signalGroup(child.pid!, signal);
  return {
    pid: child.pid!,
    output: () => out,
    exited,
    gone: () => gone,
    kill,
    async stop(graceMs = 10_000) {
      kill("SIGTERM");
      const late = setTimeout(() => kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(late);
      // Whatever it started goes with it.
      kill("SIGKILL");
    },
  };
}

/**
 * Polls `ready` until it is true. Throws with the group's output when the group exits first or `withinMs` passes,
 * having stopped the group; `what` names the awaited state for that message ("magis serve being ready").
 */
export async function waitFor(group: ProcessGroup, ready: () => Promise<boolean> | boolean, options: { withinMs: number; what: string }): Promise<void> {
  const deadline = Date.now() + options.withinMs;
  while (!(await ready())) {
    if (group.gone() || Date.now() > deadline) {
      const why = group.gone() ? "exited first" : `did not happen within ${options.withinMs} ms`;
      await group.stop(0);
      throw new Error(`${options.what}: ${why}; its output:\n${group.output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether GET `url` answers 200 now (a refused or slow connection is a no). */
export async function answersOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}
