import type { Logger } from "pino";
import { createProbot, run } from "probot";
import { createOctokitClass, githubBoundsFrom } from "../github/create-octokit-class.js";
import { magisApp } from "../index.js";
import { startWebhookServer, type RunningServer } from "../server/start-webhook-server.js";
import { parseFlags, type CliIo, type Command } from "./io.js";

const usage = `Usage: magis serve

Runs the MAGIS GitHub App (Probot). Without APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) it serves
Probot's setup page on http://localhost:3000 to register the app from app.yml (the manifest flow),
which writes the credentials to .env; with them it serves webhooks at /api/github/webhooks. A webhook body over
GitHub's 25 MB cap is refused (413) before it is read whole, one with a bad signature with 400.

Environment:
  APP_ID, PRIVATE_KEY | PRIVATE_KEY_PATH   the GitHub App's credentials
  WEBHOOK_SECRET                           the secret GitHub signs webhooks with
  WEBHOOK_PROXY_URL                        a smee.io channel forwarding webhooks to a local machine
  PORT (3000), HOST (localhost), LOG_LEVEL (info), LOG_FORMAT   the HTTP server and its logs
  GHE_HOST, GHE_PROTOCOL (https)           a GitHub Enterprise Server's API host instead of api.github.com
  MAGIS_GITHUB_TIMEOUT_MS (20000)          most time one GitHub API request may take (5xx answers are retried
                                           twice; a timeout is not retried)
  OPENAI_API_KEY, OPENAI_BASE_URL, MAGIS_MODEL   the model (any OpenAI-compatible server)
  MAGIS_DB (.magis/magis.db)               SQLite file of job records and the evolution memory
  MAGIS_JOBS_CONCURRENCY (2)               jobs run at once
  MAGIS_WORKDIR (system temp)              where checkouts go (a tmpfs such as /dev/shm is fastest)
  MAGIS_GIT_BASE_URL                       clone from this origin instead of the API's clone_url
  MAGIS_TRACE_DIR                          per-job model traces (JSON Lines), default .magis/traces`;

/**
 * Starts the app's HTTP server (or Probot's setup page when the app is not registered yet) and returns it. Every
 * GitHub client the app gets is bounded by MAGIS_GITHUB_TIMEOUT_MS. `log` replaces the logger built from LOG_LEVEL.
 */
export async function startServer(env: NodeJS.ProcessEnv, options: { log?: Logger } = {}): Promise<RunningServer> {
  const Octokit = createOctokitClass(githubBoundsFrom(env));
  if (!env.APP_ID || !(env.PRIVATE_KEY || env.PRIVATE_KEY_PATH)) return run(magisApp({ env }), { env, Octokit, ...options });
  const probot = createProbot({
    // Probot's own server logged at info, as JSON in production; createProbot alone would default to warn, pretty.
    env: { LOG_LEVEL: "info", LOG_FORMAT: env.NODE_ENV === "production" ? "json" : "pretty", ...env },
    overrides: { Octokit, ...options },
  });
  return startWebhookServer({
    probot,
    app: magisApp({ env }),
    host: env.HOST || "localhost",
    port: env.PORT ? Number(env.PORT) : 3000,
    webhookProxy: env.WEBHOOK_PROXY_URL || undefined,
  });
}

/** `magis serve`: the GitHub App. */
export const serveCommand: Command = {
  name: "serve",
  summary: "run the GitHub App (setup page first when APP_ID/PRIVATE_KEY are missing)",
  usage,
  run: async (args: string[], io: CliIo) => {
    parseFlags(args, {});
    await startServer(io.env);
    // The server keeps the process alive until it is stopped (Ctrl-C, SIGTERM).
    return 0;
  },
};
