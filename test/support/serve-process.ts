import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./free-port.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The process groups started here that are still running: killed if this process exits without stopping them. */
const running = new Set<number>();
let killedAtExit = false;

function killAtExit(): void {
  if (killedAtExit) return;
  killedAtExit = true;
  process.on("exit", () => {
    for (const group of running) {
      try {
        process.kill(-group, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
  });
}

/** A `magis serve` child process, in a process group of its own. */
export interface ServeProcess {
  role: "web" | "worker" | "all";
  /** Its pid, which is also its process group's id. */
  pid: number;
  /** http://127.0.0.1:<port>: webhooks (web) and /healthz, /readyz, /metrics (every role). */
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves once it has exited (its code, or the signal that ended it). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` to its whole process group (SIGKILL: the process and all it started die at once). */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM to its group, SIGKILL after `graceMs` if it has not exited; resolves once it has. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `node bin/magis.js serve --role <role>` (dist/ must be built) on a free port of 127.0.0.1 with exactly `env`
 * (plus HOST and PORT, unless the port is in a .env file in `cwd`), and resolves once GET /readyz answers 200. Rejects with its output when it exits first or is
 * not ready within `readyWithinMs`, having killed its group. A group still running when this process exits is killed then.
 */
export async function startServeProcess(
  role: ServeProcess["role"],
  env: NodeJS.ProcessEnv,
  options: { cwd: string; readyWithinMs?: number; portFromEnvFile?: number },
): Promise<ServeProcess> {
  // A port the test wrote into a .env file is not set in the environment: the process must find it there.
  const port = options.portFromEnvFile ?? (await freePort());
  const child = spawn(process.execPath, [path.join(ROOT, "bin/magis.js"), "serve", "--role", role], {
    cwd: options.cwd,
    env: { ...env, HOST: "127.0.0.1", ...(options.portFromEnvFile === undefined && { PORT: String(port) }) },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  killAtExit();
  running.add(child.pid!);
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => {
    gone = true;
    running.delete(child.pid!);
  });
  const kill = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // The group is gone already.
    }
  };
  const server: ServeProcess = {
    role,
    pid: child.pid!,
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
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
  const deadline = Date.now() + (options.readyWithinMs ?? 30_000);
  while (!(await isReady(server.url))) {
    if (gone || Date.now() > deadline) {
      await server.stop(0);
      throw new Error(`magis serve --role ${role} ${gone ? "exited" : "was not ready in time"}; its output:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return server;
}

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}
