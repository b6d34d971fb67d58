import path from "node:path";
import { startServer } from "../app/start-server.js";
import { renderSettingsHelp } from "../app/settings/render-settings-help.js";
import type { ServeRole } from "../jobs/job-queue.js";
import { withEnvFile } from "../lib/read-env-file.js";
import { UsageError } from "../lib/usage-error.js";
import { parseFlags, type CliIo, type Command } from "./io.js";

const usage = `Usage: magis serve [--role all|web|worker] [--env-file FILE]

Runs the MAGIS GitHub App (Probot). Its settings come from the environment and from FILE (default .env in the
working folder; what the environment sets wins). Without APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) it serves
the setup page on http://localhost:3000, which registers the app from app.yml (GitHub's manifest flow) and writes
APP_ID, PRIVATE_KEY_PATH (a key file beside FILE) and WEBHOOK_SECRET to FILE, or says what to set for an app
registered already: start it again and it serves webhooks at /api/github/webhooks. GitHub must reach that address:
open the setup page at the server's public address, or set WEBHOOK_PROXY_URL to a channel from https://smee.io/new.
One of APP_ID and the key without the other, or no WEBHOOK_SECRET, stops the start naming it. A webhook body over
GitHub's 25 MB cap is refused (413) before it is read whole, one with a bad signature with 400.
Once it serves it logs one line: its role, the App ID, the webhook path, the store, the sandbox, the model endpoint.
GET / (what it is), /healthz, /readyz and /metrics (Prometheus) are served by every role; /readyz answers 200
once the store, the queue and, in a role that runs jobs, the model endpoint (GET /models) have answered.

Roles (README "Run it at scale"):
  all (default)   takes webhooks and runs the jobs, in one process
  web             takes webhooks: records each trigger, decides it, queues its job; runs no job
  worker          runs jobs; takes no webhook (PORT serves only /healthz, /readyz, /metrics)
web and worker need DATABASE_URL: any number of each, on any machines, share one PostgreSQL database.
On SIGTERM a process stops taking work; running jobs may finish within MAGIS_SHUTDOWN_GRACE_SECONDS, then
a worker hands them back to the queue (another worker runs them from the start).

${renderSettingsHelp("serve")}`;

/** The roles `--role` takes. */
const ROLES: readonly ServeRole[] = ["all", "web", "worker"];

/** `magis serve`: the GitHub App, in one role. */
export const serveCommand: Command = {
  name: "serve",
  usage,
  run: async (args: string[], io: CliIo) => {
    const { values } = parseFlags(args, { role: { type: "string", default: "all" }, "env-file": { type: "string" } });
    const role = values.role as ServeRole;
    if (!ROLES.includes(role)) throw new UsageError(`--role ${values.role} is not a role: use all, web or worker`);
    const envFile = path.resolve(io.cwd, values["env-file"] ?? ".env");
    const { env, read } = withEnvFile(io.env, envFile, { required: values["env-file"] !== undefined });
    if (read.length > 0) io.stderr(`magis serve: read ${read.join(", ")} from ${envFile}\n`);
    const server = await startServer(env, { role, envFile });
    // Stopped by SIGTERM (a deployment rolling) or Ctrl-C: work in hand is finished or handed back before the exit.
    const stop = (signal: NodeJS.Signals) => {
      io.stderr(`magis serve: ${signal} received; stopping (running jobs get MAGIS_SHUTDOWN_GRACE_SECONDS to finish)\n`);
      server.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          io.stderr(`magis serve: stopping failed: ${error instanceof Error ? error.message : String(error)}\n`);
          process.exit(1);
        },
      );
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    return 0;
  },
};
