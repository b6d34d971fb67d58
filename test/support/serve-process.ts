import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./free-port.js";
import { answersOk, startProcessGroup, waitFor, type ProcessGroup } from "./process-group.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** A `magis serve` child process, in a process group of its own. */
export interface ServeProcess extends ProcessGroup {
  role: "web" | "worker" | "all";
  /** http://127.0.0.1:<port>: webhooks (web) and /healthz, /readyz, /metrics (every role). */
  url: string;
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
  const group = startProcessGroup(process.execPath, [path.join(ROOT, "bin/magis.js"), "serve", "--role", role], {
    cwd: options.cwd,
    env: { ...env, HOST: "127.0.0.1", ...(options.portFromEnvFile === undefined && { PORT: String(port) }) },
  });
  const server: ServeProcess = { ...group, role, url: `http://127.0.0.1:${port}` };
  await waitFor(group, () => answersOk(`${server.url}/readyz`), { withinMs: options.readyWithinMs ?? 30_000, what: `magis serve --role ${role} being ready` });
  return server;
}
