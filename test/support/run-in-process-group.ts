import { spawn } from "node:child_process";

/**
 * Runs a command in a process group of its own and collects its output; the whole group is killed when the command
 * ends (nothing it started outlives it) or after `timeoutMs`, whatever happens to the caller's test.
 */
export function runInProcessGroup(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number | null; out: string }> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const kill = () => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // The group is gone already.
    }
  };
  const timer = setTimeout(kill, options.timeoutMs);
  return new Promise((resolve) => {
    child.on("close", (code) => {
      clearTimeout(timer);
      kill();
      resolve({ code, out });
    });
  });
}
