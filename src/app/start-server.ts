import { UsageError } from "../lib/usage-error.js";
import type { Logger } from "pino";
import { createProbot, run } from "probot";
import { openBackend } from "../backends/open-backend.js";
import { createOctokitClass } from "../github/create-octokit-class.js";
import type { ServeRole } from "../jobs/job-queue.js";
import type { RunningServer } from "../server/listen-on.js";
import { createMetrics } from "../server/metrics.js";
import { startOpsServer } from "../server/start-ops-server.js";
import { startWebhookServer } from "../server/start-webhook-server.js";
import { checkAppCredentials, checkWebhookSecret, isRegistered, missingModelSettings } from "./check-app-credentials.js";
import { createServices, probotHost, type MagisAppOptions, type MagisServices } from "./create-services.js";
import { magisApp } from "./magis-app.js";
import { readSettings } from "./settings/read-settings.js";

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
  const registered = isRegistered(settings.app);
  if (!registered && role !== "all") {
    throw new UsageError(
      `--role ${role} needs the app's credentials (APP_ID and PRIVATE_KEY or PRIVATE_KEY_PATH): register the app first with \`magis serve\` and its setup page`,
    );
  }
  // Probot's setup page reads its own settings (HOST, WEBHOOK_PROXY_URL, NODE_ENV, …) from the environment, passed
  // through on purpose; it reads PORT too, and would take "0" or "8_080" for its default.
  if (!registered) return run(magisApp({ env, settings }), { env: { ...env, PORT: String(port) }, Octokit, ...options });
  checkAppCredentials(settings.app);
  if (role !== "worker") checkWebhookSecret(settings.app);
  // A process that runs jobs starts without a model (its settings may come later, with a restart), but says so loudly
  // and is not ready: every job it took would fail.
  const modelProblem = role === "web" ? undefined : missingModelSettings(settings.model);
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
  const ready = () => {
    if (modelProblem) return Promise.reject(new Error(modelProblem));
    return services ? services.ready() : Promise.reject(new Error("the app is still starting"));
  };
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
  if (modelProblem) (options.log ?? probot.log).error(`ALERT: ${modelProblem}; /readyz answers 503 until it is set`);
  return {
    ...server,
    stop: async () => {
      await server.stop();
      await services?.stop(graceMs);
      await backend.close();
    },
  };
}
