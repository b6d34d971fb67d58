import type { Logger } from "pino";
import { createProbot, run } from "probot";
import { createOctokitClass } from "../github/create-octokit-class.js";
import { checkAppCredentials } from "../app/check-app-credentials.js";
import { createServices, probotHost, type MagisAppOptions, type MagisServices } from "../app/create-services.js";
import { readSettings } from "../app/settings/read-settings.js";
import { renderSettingsHelp } from "../app/settings/render-settings-help.js";
import { magisApp } from "../index.js";
import type { ServeRole } from "../jobs/job-queue.js";
import { createMetrics } from "../server/metrics.js";
import { startOpsServer } from "../server/start-ops-server.js";
import type { RunningServer } from "../server/listen-on.js";
import { startWebhookServer } from "../server/start-webhook-server.js";
import { openBackend } from "../backends/open-backend.js";
import { parseFlags, UsageError, type CliIo, type Command } from "./io.js";

const usage = `Usage: magis serve [--role all|web|worker]

Runs the MAGIS GitHub App (Probot). Without APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) it serves
Probot's setup page on http://localhost:3000 to register the app from app.yml (the manifest flow),
which writes the credentials to .env; with them it serves webhooks at /api/github/webhooks. A webhook body over
GitHub's 25 MB cap is refused (413) before it is read whole, one with a bad signature with 400.
GET /healthz, /readyz and /metrics (Prometheus) are served by every role.

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

/**
 * Starts the app in `role` and returns its HTTP server, whose `stop` also stops the work: the queue stops taking
 * jobs, running ones get MAGIS_SHUTDOWN_GRACE_SECONDS, then the store closes. Without the app's credentials it serves
 * Probot's setup page (role `all` only). Every GitHub client the app gets is bounded by MAGIS_GITHUB_TIMEOUT_MS.
 * `log` replaces the logger built from LOG_LEVEL.
 */
export async function startServer(env: NodeJS.ProcessEnv, options: { log?: Logger; role?: ServeRole } = {}): Promise<RunningServer> {
  const role = options.role ?? "all";
  // Every setting is read before anything starts, so that a mistyped value stops the app with the reason and nothing
  // half-started: no database file, no pool, no port (Probot's logger would refuse a LOG_LEVEL only once the store is
  // open, after printing its stack).
  const settings = readSettings(env, { door: "serve" });
  const { port } = settings.server;
  const graceMs = settings.jobs.shutdownGraceSeconds * 1000;
  const Octokit = createOctokitClass(settings.github);
  const registered = settings.app.appId !== undefined && Boolean(settings.app.privateKey || settings.app.privateKeyPath);
  if (!registered && role !== "all") {
    throw new UsageError(
      `--role ${role} needs the app's credentials (APP_ID and PRIVATE_KEY or PRIVATE_KEY_PATH): register the app first with \`magis serve\` and its setup page`,
    );
  }
  // Probot's setup page reads its own settings (HOST, WEBHOOK_PROXY_URL, NODE_ENV, …) from the environment, passed
  // through on purpose; it reads PORT too, and would take "0" or "8_080" for its default.
  if (!registered) return run(magisApp({ env, settings }), { env: { ...env, PORT: String(port) }, Octokit, ...options });
  checkAppCredentials(settings.app);
  if (role !== "all" && !settings.store.databaseUrl) {
    throw new UsageError(`--role ${role} needs DATABASE_URL (a PostgreSQL database every process shares); without it run one process with --role all`);
  }
  // Probot is built before the store is opened too: what it refuses leaves no database file behind and no pool open.
  const probot = createProbot({
    // Probot's own server logged at info, as JSON in production; createProbot alone would default to warn, pretty.
    // Probot reads its settings (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, GHE_HOST, …) from the environment, passed through on purpose.
    env: { LOG_LEVEL: "info", LOG_FORMAT: settings.server.nodeEnv === "production" ? "json" : "pretty", ...env },
    overrides: { Octokit, ...(options.log ? { log: options.log } : {}) },
  });
  const backend = await openBackend(settings.store);
  const metrics = createMetrics({ role, queueDepth: () => backend.store.jobs.depth() });
  let services: MagisServices | undefined;
  const app: MagisAppOptions = { env, settings, backend, role, metrics, onReady: (made) => (services = made) };
  const ready = () => (services ? services.ready() : Promise.reject(new Error("the app is still starting")));
  const { host } = settings.server;
  let server: RunningServer;
  try {
    if (role === "worker") {
      // A worker takes no webhook: its GitHub clients come from the app's credentials, its port serves only probes.
      // Probot builds its logger asynchronously (load() waits for it on the web path); auth() as the app waits too, without a request.
      await probot.auth();
      services = createServices(probotHost(probot), app);
      await services.start();
      server = await startOpsServer({ host, port, metrics, ready, log: probot.log });
    } else {
      server = await startWebhookServer({
        probot,
        app: magisApp(app),
        host,
        port,
        webhookProxy: settings.server.webhookProxyUrl,
        metrics,
        ready,
        redelivered: (delivery) => services?.desk.wasRedelivery(delivery) ?? false,
      });
    }
  } catch (error) {
    await backend.close();
    throw error;
  }
  return {
    ...server,
    stop: async () => {
      await server.stop();
      await services?.stop(graceMs);
      await backend.close();
    },
  };
}

/** `magis serve`: the GitHub App, in one role. */
export const serveCommand: Command = {
  name: "serve",
  summary: "run the GitHub App (--role all|web|worker; setup page first when APP_ID/PRIVATE_KEY are missing)",
  usage,
  run: async (args: string[], io: CliIo) => {
    const { values } = parseFlags(args, { role: { type: "string", default: "all" } });
    const role = values.role as ServeRole;
    if (!ROLES.includes(role)) throw new UsageError(`--role ${values.role} is not a role: use all, web or worker`);
    const server = await startServer(io.env, { role });
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
