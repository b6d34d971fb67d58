import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { appPrivateKey } from "./app-private-key.js";
import { freePort } from "./free-port.js";
import { answersOk, startProcessGroup, waitFor, type ProcessGroup } from "./process-group.js";

const MAGIS = path.resolve(import.meta.dirname, "../integration/locate/run-magis.ts");
// By its path: the process may run in a temp folder, where `--import tsx` would not find the package.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** A `magis serve --role all` run from the sources, in a process group of its own. */
export interface SourceServe extends ProcessGroup {
  /** http://127.0.0.1:<port>: webhooks, /healthz, /readyz, /metrics. */
  url: string;
}

/**
 * Starts `magis serve` from the sources (through tsx: no dist/ to build) in `cwd`, registered as App 1 with a fresh key,
 * its GitHub a port nothing answers on (a decision asks for a token and fails, never reaching github.com), no sandbox,
 * and `env` over that (PATH is kept); resolves once /readyz answers 200, having killed its group if it does not.
 */
export async function startServeFromSources(env: NodeJS.ProcessEnv, options: { cwd: string }): Promise<SourceServe> {
  const port = await freePort();
  const group = startProcessGroup(process.execPath, ["--import", TSX, MAGIS, "serve"], {
    cwd: options.cwd,
    env: {
      PATH: process.env.PATH,
      HOST: "127.0.0.1",
      PORT: String(port),
      NODE_ENV: "test",
      APP_ID: "1",
      PRIVATE_KEY: appPrivateKey(),
      WEBHOOK_SECRET: "s3cret",
      GHE_HOST: `127.0.0.1:${await freePort()}`,
      GHE_PROTOCOL: "http",
      MAGIS_SANDBOX: "none",
      ...env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(group, () => answersOk(`${url}/readyz`), { withinMs: 60_000, what: "magis serve being ready" });
  return { ...group, url };
}
