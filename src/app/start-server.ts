import path from "node:path";
import type { Logger } from "pino";
import { createProbot } from "probot";
import { openBackend } from "../backends/open-backend.js";
import { createOctokitClass } from "../github/client/create-octokit-class.js";
import type { ServeRole } from "../jobs/job-queue.js";
import { UsageError } from "../lib/usage-error.js";
import type { RunningServer } from "../server/listen-on.js";
import type { SessionPages } from "../server/serve-session-pages.js";
import { createMetrics } from "../server/metrics.js";
import { startOpsServer } from "../server/start-ops-server.js";
import { startWebhookServer, WEBHOOK_PATH } from "../server/start-webhook-server.js";
import { checkAppCredentials, checkWebhookSecret, isRegistered, missingModelSettings } from "./check-app-credentials.js";
import { checkModelEndpoint } from "./check-model-endpoint.js";
import { createServices, probotHost } from "./create-services.js";
import { magisApp } from "./magis-app.js";
import { environmentShelfFor } from "./open-environments.js";
import { openSessionPages } from "./open-session-pages.js";
import { renderStartLine } from "./render-start-line.js";
import type { MagisAppOptions, MagisServices } from "./service-types.js";
import { serveDatabaseFile } from "./settings/find-state-paths.js";
import { readSettings } from "./settings/read-settings.js";
import type { Settings } from "./settings/settings-table.js";
import { startSetupServer } from "./setup/start-setup-server.js";

/** The GitHub client class every client of the app is built from (createOctokitClass). */
type GitHubClientClass = ReturnType<typeof createOctokitClass>;

/** How `magis serve` starts: its role, the .env file its settings came from, and a logger instead of LOG_LEVEL's. */
export interface StartOptions {
  log?: Logger;
  role?: ServeRole;
  /** The .env file the settings came from (default .env in the working folder): hidden from the sandbox; the setup page writes the app's settings there. */
  envFile?: string;
}

/**
 * Starts the app in `role` and returns its HTTP server, whose `stop` also stops the work: the queue stops taking
 * jobs, running ones get MAGIS_SHUTDOWN_GRACE_SECONDS, then the store closes. Without the app's credentials it serves
 * the setup page (role `all` only, and not in production). Once it serves it logs one line saying what it is (see
 * renderStartLine). Every GitHub client the app gets is bounded by MAGIS_GITHUB_TIMEOUT_MS.
 */
export async function startServer(env: NodeJS.ProcessEnv, options: StartOptions = {}): Promise<RunningServer> {
  const role = options.role ?? "all";
  // Every setting is read before anything starts, so that a mistyped value stops the app with the reason and nothing
  // half-started: no database file, no pool, no port (Probot's logger would refuse a LOG_LEVEL only once the store is
  // open, after printing its stack).
  const settings = readSettings(env, { door: "serve" });
  const { port } = settings.server;
  const graceMs = settings.jobs.shutdownGraceSeconds * 1000;
  const Octokit = createOctokitClass(settings.github);
  const envFile = options.envFile ?? path.resolve(".env");
  if (!isRegistered(settings.app)) return startSetupMode(env, settings, { ...options, envFile, Octokit });
  checkAppCredentials(settings.app);
  if (role !== "worker") checkWebhookSecret(settings.app);
  // A process that runs jobs starts without a model (its settings may come later, with a restart), but says so loudly
  // and is not ready: every job it took would fail.
  const modelProblem = role === "web" ? undefined : missingModelSettings(settings.model);
  if (role !== "all" && !settings.store.databaseUrl) {
    throw new UsageError(`--role ${role} needs DATABASE_URL (a PostgreSQL database every process shares); without it run one process with --role all`);
  }
  // Probot is built before the store is opened too: what it refuses leaves no database file behind and no pool open.
  const probot = createProbotFor(env, settings, { Octokit, log: options.log });
  // The kept environments' folder is checked (the bot's own) before the store opens, as settings are.
  const environments = environmentShelfFor(settings, { cwd: process.cwd(), log: options.log ?? probot.log });
  // The SQLite file openBackend opens, told in the start line (with a note when it is where earlier versions kept it).
  const database = settings.store.databaseUrl ? undefined : serveDatabaseFile(settings.store, process.cwd());
  const backend = await openBackend(settings.store, database ? { sqliteFile: database.file } : {});
  const metrics = createMetrics({
    role,
    queueDepth: () => backend.store.jobs.depth(),
    ...(environments && role !== "web" && { environments: () => environments.stats() }),
  });
  let services: MagisServices | undefined;
  // The session pages (/jobs/<id>) of a web process, once its services exist; off, saying why, without an OAuth client.
  let pages: SessionPages | undefined;
  // Probot builds its logger as it loads (on the web path, inside startWebhookServer): asked for when used, not before.
  const logger = () => options.log ?? probot.log;
  const onReady = (made: MagisServices) => {
    services = made;
    if (role === "worker") return;
    const log = logger();
    const opened = openSessionPages(settings, { store: made.store, queue: made.queue, auth: probotHost(probot).auth, log, prices: settings.model.prices });
    if ("off" in opened) log.info(opened.off);
    else pages = opened;
  };
  const app: MagisAppOptions = {
    settings: { env, values: settings, role, envFile },
    seams: { backend, metrics, environments, onReady },
  };
  // A process that runs jobs is not ready until its model endpoint has answered once: a wrong OPENAI_BASE_URL shows
  // before the first job, and a rollout with it stops there.
  const modelReady = role === "web" || modelProblem ? undefined : checkModelEndpoint(settings.model);
  const ready = async () => {
    if (modelProblem) throw new Error(modelProblem);
    if (!services) throw new Error("the app is still starting");
    const notes = [await services.ready(), await modelReady?.()];
    return notes.filter(Boolean).join("\n");
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
        role,
        webhookProxy: settings.server.webhookProxyUrl,
        metrics,
        ready,
        redelivered: (delivery) => services?.desk.wasRedelivery(delivery) ?? false,
        pages: () => pages,
      });
    }
  } catch (error) {
    await backend.close();
    throw error;
  }
  const log = logger();
  const { webhookProxyUrl } = settings.server;
  log.info(
    { role, appId: settings.app.appId },
    renderStartLine({
      role,
      appId: settings.app.appId!,
      ...(role !== "worker" && { webhookPath: probot.webhookPath, webhookProxyUrl }),
      databaseUrl: settings.store.databaseUrl,
      ...(database && { sqliteFile: database.file }),
      ...(role !== "web" && services && { sandbox: services.sandbox }),
      modelBaseUrl: settings.model.baseUrl,
    }),
  );
  if (database?.note) log.warn(database.note);
  if (modelProblem) log.error(`ALERT: ${modelProblem}; /readyz answers 503 until it is set`);
  const firstCheck = modelReady?.().then(
    () => undefined,
    (error: unknown) => log.error(`ALERT: ${error instanceof Error ? error.message : String(error)}; /readyz answers 503 until it answers`),
  );
  return {
    ...server,
    stop: async () => {
      await firstCheck;
      await server.stop();
      await services?.stop(graceMs);
      await backend.close();
    },
  };
}

/**
 * The setup page of an app not registered yet (role `all` only; in production the start stops, naming what to set).
 * Probot's logger is built for it as for the app, though no Probot app runs: its credentials are placeholders.
 */
async function startSetupMode(
  env: NodeJS.ProcessEnv,
  settings: Settings,
  options: StartOptions & { envFile: string; Octokit: GitHubClientClass },
): Promise<RunningServer> {
  const role = options.role ?? "all";
  const toSet = `APP_ID, PRIVATE_KEY_PATH (or PRIVATE_KEY) and WEBHOOK_SECRET of a registered GitHub App (in ${options.envFile} or the environment)`;
  if (role !== "all")
    throw new UsageError(`--role ${role} needs the app's credentials: set ${toSet}, or register the app first with \`magis serve\` and its setup page`);
  if (settings.server.nodeEnv === "production") {
    throw new UsageError(
      `NODE_ENV is production, and the app is not registered: set ${toSet}, or register it first on the setup page of \`magis serve\` run without NODE_ENV=production`,
    );
  }
  const { Octokit } = options;
  const probot = createProbotFor(env, settings, { Octokit, log: options.log, placeholders: true });
  // Probot builds its logger asynchronously; load() waits for it.
  await probot.load(() => {});
  return startSetupServer({ settings, envFile: options.envFile, Octokit, log: options.log ?? probot.log });
}

/** Probot, logging at info (JSON in production) unless LOG_LEVEL and LOG_FORMAT say otherwise, with webhooks at WEBHOOK_PATH. */
function createProbotFor(env: NodeJS.ProcessEnv, settings: Settings, options: { Octokit: GitHubClientClass; log?: Logger; placeholders?: boolean }) {
  return createProbot({
    // createProbot alone would default to warn, pretty. Probot reads its settings (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET,
    // GHE_HOST, …) from the environment, passed through on purpose.
    env: { LOG_LEVEL: "info", LOG_FORMAT: settings.server.nodeEnv === "production" ? "json" : "pretty", ...env },
    overrides: {
      Octokit: options.Octokit,
      webhookPath: WEBHOOK_PATH,
      ...(options.placeholders && { appId: 1, privateKey: "the app is not registered: the setup page serves" }),
      ...(options.log ? { log: options.log } : {}),
    },
  });
}
