import os from "node:os";
import path from "node:path";
import type { Probot } from "probot";
import { openDatabase } from "../backends/sqlite/database.js";
import { SqliteBackend } from "../backends/sqlite/sqlite-backend.js";
import { objectCacheFrom } from "../git/object-cache.js";
import { readBotLogin } from "../github/read/read-bot-login.js";
import type { BotIdentity, Octokit } from "../github/types.js";
import { reportInterruptedJob } from "../jobs/report-interrupted-job.js";
import type { JobServices } from "../jobs/run-job.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import { forgetUninstalled } from "../triggers/rules/on-uninstalled.js";
import { chooseSandbox, hostSandbox, type SandboxChoice, type SandboxMode, type SandboxWanted } from "../sandbox/index.js";
import { createJobRunner } from "./create-job-runner.js";
import { createTriggerDesk } from "./create-trigger-desk.js";
import { listBotPaths } from "./list-bot-paths.js";
import { environmentShelfFor } from "./open-environments.js";
import type { GitHubHost, MagisAppOptions, MagisServices, ServiceSettings } from "./service-types.js";
import { serveDatabaseFile } from "./settings/find-state-paths.js";
import { readSettings } from "./settings/read-settings.js";
import { sweepSessions } from "./sweep-sessions.js";
import { sweepCheckouts, sweepObjects } from "./sweep-work-folder.js";
import type { Settings } from "./settings/settings-table.js";

/**
 * Builds the job store, the queue, the runner of both job kinds (createJobRunner) and the trigger desk with every
 * trigger rule (createTriggerDesk), for one door (the App's Probot instance, or an Action's token), from what the
 * operator set and the parts the door or a test puts in.
 */
export function createServices(host: GitHubHost, { settings = serveSettings(process.env), seams = {} }: MagisAppOptions = {}): MagisServices {
  const { values, env } = settings;
  // Without a backend given (Probot's `probot run`), the SQLite file magis serve opens, with the traces beside it.
  let backend = seams.backend;
  let tracesBeside = "";
  if (!backend) {
    const dbFile = serveDatabaseFile(values.store, process.cwd()).file;
    backend = new SqliteBackend(openDatabase(dbFile));
    tracesBeside = path.join(path.dirname(dbFile), "traces");
  }
  const { store } = backend;
  const role = settings.role ?? "all";
  backend.checkRole(role);
  const { auth, log } = host;
  const workDir = values.git.workDir ?? os.tmpdir();
  const objects = objectCacheFrom(values.git, workDir);
  const sandbox = seams.sandbox ?? sandboxFor(values, { env, log, envFile: settings.envFile });
  // The environments this machine's jobs built, kept for the next job of their repository; the web role removes an
  // uninstalled installation's from the same folder.
  const environments = "environments" in seams ? seams.environments : environmentShelfFor(values, { cwd: process.cwd(), log });
  const secrets = appSecrets(values);
  const runner = createJobRunner({
    host,
    settings,
    seams,
    store,
    secrets,
    commands: sandbox.sandbox ? { sandbox: sandbox.sandbox, secrets, ...(environments && { environments }) } : { why: sandbox.why },
    traceDir: values.jobs.traceDir ?? tracesBeside,
    objects,
  });
  // Checkouts (and test runs) of processes killed mid-job go at start and every few minutes, whichever worker of the
  // machine finds them; kept objects age out even on a worker that clones nothing more, checked every hour.
  const sweeping = role === "web" ? [] : [sweepCheckouts(workDir, log, seams.checkoutSweepMs), ...(objects ? [sweepObjects(objects, log)] : [])];
  const queue = backend.createQueue(runner, {
    log,
    role,
    concurrency: values.jobs.concurrency,
    // Its heartbeat is a quarter of it, at most 5 s: below 3 s a busy database would have workers taken for lost.
    lostAfterMs: values.jobs.workerLostSeconds * 1000,
    // A job whose process died is said so on its issue, whichever process finds it.
    onAbandoned: async (job, how) => {
      if (how === "lost") seams.metrics?.jobFinished(job.kind, "lost", 0);
      try {
        await reportInterruptedJob(await auth(job.installationId), job, how);
      } catch (error) {
        log.warn({ job: job.id, error: redactSecrets(String(error), []) }, "could not report an interrupted job on its issue");
      }
    },
    onFailed: (job, reason) => log.warn({ job: job.id, error: reason }, "job failed"),
  });
  const desk = createTriggerDesk({
    host,
    values,
    role,
    triggers: store.triggers,
    leaseMs: backend.triggerLeaseMs,
    queue,
    seams,
    steering: { jobs: store.jobs, sessions: store.sessions },
  });
  let started = false;
  const settled = async () => {
    // A decision may queue a job, and nothing queues a decision, so one pass of each in this order suffices.
    await desk.settled();
    await queue.drain();
  };
  const start = async () => {
    await backend.migrate(log);
    // Sessions past MAGIS_SESSION_DAYS go at start and every hour, in every role: once migrated, their table exists.
    sweeping.push(sweepSessions(store.sessions, values.store.sessionDays, log));
    await queue.start();
    if (role !== "worker") await desk.start();
    started = true;
  };
  const ready = async () => {
    if (!started) throw new Error("the app is still starting (migrating the store, starting the queue)");
    await store.ping();
    if (role === "web") return;
    return sandbox.sandbox ? `repository commands run ${sandbox.sandbox.description}` : `repository commands do not run: ${sandbox.why}`;
  };
  const stop = async (graceMs: number) => {
    for (const sweep of sweeping) sweep.stop();
    desk.stop();
    await desk.settled();
    await queue.stop(graceMs);
  };
  const forget = forgetUninstalled({ memory: store.memory, sessions: store.sessions, jobs: store.jobs, queue, log, environments });
  return { queue, store, jobs: store.jobs, triggers: store.triggers, desk, start, settled, ready, stop, bot: host.bot, forgetUninstalled: forget, sandbox };
}

/**
 * What `magis serve` reads from `env`: Probot's default export, run by `probot run`, gives no options, and the process's
 * environment is its door's. Read before anything runs (the sweeps remove files), so that a mistyped value stops the app
 * untouched.
 */
function serveSettings(env: NodeJS.ProcessEnv): ServiceSettings {
  return { env, values: readSettings(env, { door: "serve" }) };
}

/** The App's door: installation clients and the log from Probot, the bot login from the app's slug. */
export function probotHost(app: Probot): GitHubHost {
  const slugLogin = async () => readBotLogin((await app.auth()) as Octokit);
  return { auth: (installationId) => app.auth(installationId) as Promise<Octokit>, bot: botIdentity(slugLogin), log: app.log };
}

/** A bot's identity, asked of GitHub once (again after a failure). */
export function botIdentity(login: () => Promise<string>): () => Promise<BotIdentity> {
  let cached: Promise<BotIdentity> | null = null;
  return () => {
    cached ??= login()
      .then((name) => ({ login: name }))
      .catch((error: unknown) => {
        cached = null;
        throw error;
      });
    return cached;
  };
}

/**
 * The sandbox of a door, as MAGIS_SANDBOX says (MAGIS_ALLOW_EXEC=1 stands for `none` where it is left at `auto`),
 * logged once: what holds the repository's commands, or why they do not run. In the Action, where the runner is the
 * repository's own machine, `auto` without a working bubblewrap runs them uncontained, saying what that exposes.
 */
export function sandboxFor(settings: Settings, door: { env: NodeJS.ProcessEnv; log: JobServices["log"]; action?: boolean; envFile?: string }): SandboxChoice {
  const { env, log } = door;
  const legacy = settings.jobs.allowExec && settings.jobs.sandbox === "auto";
  if (legacy) log.warn({}, "MAGIS_ALLOW_EXEC=1 is deprecated: it stands for MAGIS_SANDBOX=none (no sandbox); set MAGIS_SANDBOX instead");
  const secrets = appSecrets(settings);
  let choice = chooseSandbox(sandboxWanted(settings, { env, secrets, mode: legacy ? "none" : settings.jobs.sandbox, envFile: door.envFile }));
  if (!choice.sandbox && door.action) {
    log.warn(
      { sandbox: "none" },
      `no sandbox (${choice.cause}): the repository's commands run uncontained on the runner, where they can reach the workflow's token and model key; install bubblewrap in the workflow (apt-get install bubblewrap) to contain them`,
    );
    choice = { sandbox: hostSandbox(env, secrets) };
  }
  if (choice.sandbox) log.info({ sandbox: choice.sandbox.kind }, `repository commands run ${choice.sandbox.description}`);
  else log.warn({ sandbox: null }, `repository commands do not run: ${choice.why}`);
  return choice;
}

/**
 * What a door asks of its sandbox, from the settings: MAGIS_SANDBOX unless `mode` says otherwise, its setup network and
 * image, and the bot's own paths to hide, from its working directory (default: this process's) and env file.
 */
export function sandboxWanted(
  settings: Settings,
  door: { env: NodeJS.ProcessEnv; secrets: readonly (string | undefined)[]; mode?: SandboxMode; cwd?: string; envFile?: string },
): SandboxWanted {
  const { jobs } = settings;
  return {
    mode: door.mode ?? jobs.sandbox,
    setupNetwork: jobs.sandboxSetupNetwork,
    setupAllowHosts: jobs.setupAllowHosts,
    env: door.env,
    secrets: door.secrets,
    botPaths: listBotPaths(settings, { cwd: door.cwd ?? process.cwd(), envFile: door.envFile }),
    container: { image: jobs.sandboxImage, engine: jobs.sandboxEngine },
  };
}

/**
 * The app's own credentials: kept out of the repository's commands, redacted from what they print and from every
 * session, whether commands run or not. The sign-in's client secret and cookie key are among them: either would let
 * whoever read it forge a signed-in visitor's cookie.
 */
function appSecrets(settings: Settings): (string | undefined)[] {
  const { model, app, runner, server } = settings;
  return [model.apiKey, app.webhookSecret, app.privateKey, runner.token, app.clientSecret, server.sessionSecret];
}
