import { run, type Server } from "probot";
import { magisApp } from "../index.js";
import { parseFlags, type CliIo, type Command } from "./io.js";

const usage = `Usage: magis serve

Runs the MAGIS GitHub App (Probot). Without APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) it serves
Probot's setup page on http://localhost:3000 to register the app from app.yml (the manifest flow),
which writes the credentials to .env; with them it serves webhooks at /api/github/webhooks.

Environment:
  APP_ID, PRIVATE_KEY | PRIVATE_KEY_PATH   the GitHub App's credentials
  WEBHOOK_SECRET                           the secret GitHub signs webhooks with
  WEBHOOK_PROXY_URL                        a smee.io channel forwarding webhooks to a local machine
  PORT (3000), HOST, LOG_LEVEL             the HTTP server and its logs
  OPENAI_API_KEY, OPENAI_BASE_URL, MAGIS_MODEL   the model (any OpenAI-compatible server)
  MAGIS_DB (.magis/magis.db)               SQLite file of job records and the evolution memory
  MAGIS_JOBS_CONCURRENCY (2)               jobs run at once
  MAGIS_WORKDIR (system temp)              where checkouts go (a tmpfs such as /dev/shm is fastest)
  MAGIS_GIT_BASE_URL                       clone from this origin instead of the API's clone_url
  MAGIS_TRACE_DIR                          per-job model traces (JSON Lines), default .magis/traces`;

/** Starts the app's HTTP server (or the setup page when the app is not registered yet) and returns it. */
export async function startServer(env: NodeJS.ProcessEnv): Promise<Server> {
  return run(magisApp({ env }), { env });
}

/** `magis serve`: the GitHub App. */
export const serveCommand: Command = {
  name: "serve",
  summary: "run the GitHub App (setup page first when APP_ID/PRIVATE_KEY are missing)",
  usage,
  run: async (args: string[], io: CliIo) => {
    parseFlags(args, {});
    await startServer(io.env);
    // The server keeps the process alive; Probot stops it on SIGINT.
    return 0;
  },
};
