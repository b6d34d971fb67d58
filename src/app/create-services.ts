import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Context, Probot } from "probot";
import type { Backend } from "../backends/backend.js";
import { openDatabase } from "../backends/sqlite/database.js";
import { SqliteBackend } from "../backends/sqlite/sqlite-backend.js";
import { TermMemo } from "../pipeline/locate/remember-terms.js";
import { objectCacheFrom, type ObjectCache } from "../git/object-cache.js";
import { readBotLogin } from "../github/read/read-bot-login.js";
import type { BotIdentity, Octokit } from "../github/types.js";
import { dispatchByKind } from "../jobs/dispatch-by-kind.js";
import type { JobQueue, JobRunner, ServeRole } from "../jobs/job-queue.js";
import { resolveKind, type ResolveJobServices } from "../jobs/kinds/resolve/run.js";
import { reviseKind, type ReviseJobServices } from "../jobs/kinds/revise/run.js";
import { reportInterruptedJob } from "../jobs/report-interrupted-job.js";
import { jobRunner, type JobServices } from "../jobs/run-job.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import { createLlm } from "../llm/client.js";
import { checkRepositoryModels } from "../llm/llm-settings.js";
import { resolveIssue } from "../pipeline/resolve-issue.js";
import { revisePullRequest } from "../pipeline/revise/revise-pull-request.js";
import { withLanguageServers } from "../pipeline/with-language-servers.js";
import type { MagisMetrics } from "../server/metrics.js";
import type { JobStore, Store, TriggerStore } from "../store/store.js";
import { forgetUninstalled, forgetWhenCancelled, type UninstallEvent } from "../triggers/rules/on-uninstalled.js";
import { RecentRefusals } from "../triggers/recent-refusals.js";
import type { TriggerDeskOptions } from "../triggers/desk/desk-options.js";
import { TriggerDesk } from "../triggers/trigger-desk.js";
import { TriggerSpool } from "../triggers/trigger-spool.js";
import { triggerRules } from "../triggers/trigger-rules.js";
import { chooseSandbox, hostSandbox, type SandboxChoice, type SandboxMode, type SandboxWanted } from "../sandbox/index.js";
import { listBotPaths } from "./list-bot-paths.js";
import { serveDatabaseFile, spoolFolder } from "./settings/find-state-paths.js";
import { readSettings } from "./settings/read-settings.js";
import { sweepCheckouts, sweepObjects } from "./sweep-work-folder.js";
import type { Settings } from "./settings/settings-table.js";

/** How the app is put together; every field has a default from the environment, tests replace some. */
export interface MagisAppOptions {
  /** The environment the repository's commands run in, without its secrets (see commandEnv); the settings are read from it unless given. */
  env?: NodeJS.ProcessEnv;
  /** The settings the door read (`magis serve`, the Action); default: read from `env` for `magis serve`. */
  settings?: Settings;
  /**
   * The database of job records, triggers and the evolution memory, with its queue (default: the SQLite file of
   * serveDatabaseFile). Given one, traces are off unless `traceDir` says where.
   */
  backend?: Backend;
  /** Origin the repositories are cloned from instead of the API's clone_url (MAGIS_GIT_BASE_URL). */
  gitBaseUrl?: string;
  /** Directory the checkouts go in (MAGIS_WORKDIR, default the system's temp directory; a tmpfs is fastest). */
  workDir?: string;
  /** Whether clones keep their objects for the next clone of a repository (default: as MAGIS_OBJECT_CACHE_MB says; see objectCacheFrom). */
  keepObjects?: boolean;
  /** Most jobs at once (MAGIS_JOBS_CONCURRENCY, default 2). */
  concurrency?: number;
  /** Directory of per-job model traces (MAGIS_TRACE_DIR, default `traces/` beside the database); "" turns them off. */
  traceDir?: string;
  createLlm?: ResolveJobServices["createLlm"];
  /**
   * Whether a repository's config may choose any model (`any`: the Action, where the repository is its own operator),
   * or only those the operator set or allows in MAGIS_ALLOWED_MODELS (default).
   */
  repositoryModels?: "allowed" | "any";
  resolve?: ResolveJobServices["resolve"];
  revise?: ReviseJobServices["revise"];
  /**
   * Whether jobs check attempts with language servers (Pyright, the TypeScript server) installed beside the app (default
   * true; the repository's `diagnostics.enabled` may still turn them off). The Action's bundle carries none.
   */
  languageServers?: boolean;
  onTimings?: ResolveJobServices["onTimings"];
  /**
   * What the repository's `setup_command` and `test_command` run in, or why they do not run here (default: as
   * MAGIS_SANDBOX says, chosen once by chooseSandbox).
   */
  sandbox?: SandboxChoice;
  /** The `.env` file the door read its settings from (default: .env in the working directory): hidden from the sandbox. */
  envFile?: string;
  /** Called once the app's parts exist (tests wait on the queue through it). */
  onReady?: (services: MagisServices) => void;
  /**
   * What this process does (default `all`): `web` takes webhooks and queues jobs, `worker` runs them, `all` both. Only a
   * PostgreSQL store can be shared by several processes, so `web` and `worker` need one.
   */
  role?: ServeRole;
  /** Where job outcomes and model usage are counted (the serve command's /metrics). */
  metrics?: MagisMetrics;
  /** How long a worker not heard from may stay silent before its running jobs are failed (MAGIS_WORKER_LOST_SECONDS, default 60). */
  workerLostMs?: number;
  /** How often a worker looks for checkouts processes killed mid-job left (default every five minutes; tests shorten it). */
  checkoutSweepMs?: number;
  /** How often the desk replays spooled deliveries and first tries a failed decision again (tests shorten them). */
  deskTiming?: TriggerDeskOptions["timing"];
}

/** The parts of a running app that outlive one webhook. */
export interface MagisServices {
  queue: JobQueue;
  store: Store;
  /** The store's job records. */
  jobs: JobStore;
  /** Every webhook taken as a possible trigger, with what became of it. */
  triggers: TriggerStore;
  /** Records webhooks and decides about them after answering. */
  desk: TriggerDesk;
  /** Migrates the store, then starts the queue and the desk: each waits out a locked database, then takes up what an earlier process left. */
  start(): Promise<void>;
  /** Resolves once no trigger is being decided and no job is queued or running. */
  settled(): Promise<void>;
  /**
   * Resolves when the store answers and the queue has started, with what runs the repository's commands (a process
   * that runs jobs); rejects saying what is not ready (GET /readyz).
   */
  ready(): Promise<string | void>;
  /**
   * Stops taking jobs; running ones may finish within `graceMs`, then a PostgreSQL worker hands them back to the queue
   * (the embedded queue cancels them: no other process could take them). Resolves once none runs.
   */
  stop(graceMs: number): Promise<void>;
  /** The app's bot identity (asked of GitHub once); triggers compare pull request authors with its login. */
  bot: () => Promise<BotIdentity>;
  /** Probot's handler of UNINSTALL_EVENTS: forgets what the memory holds of the repositories the app lost (see forgetUninstalled). */
  forgetUninstalled: (context: Context<UninstallEvent>) => Promise<void>;
  /** What runs the repositories' commands (chosen once, when the services are made), or why they do not run. */
  sandbox: SandboxChoice;
}

/** Where the app meets GitHub: installation clients, its bot identity, and its log (Probot's app, or a token in an Action). */
export interface GitHubHost {
  auth: (installationId: number) => Promise<Octokit>;
  /** The bot identity (asked of GitHub once); triggers compare pull request authors with its login. */
  bot: () => Promise<BotIdentity>;
  log: JobServices["log"];
}

/** The settings createServices reads from the environment, unless `options` gives them. */
export interface ServiceSettings {
  concurrency: number;
  lostAfterMs: number;
  objects: ObjectCache | undefined;
  gitIdleTimeoutMs: number;
}

/**
 * The settings createServices takes from the environment's, unless `options` gives them. readSettings checked them
 * (the model's too, which each job applies with its repository's config) when the door started: a mistyped one stopped
 * the app before anything ran, and left no database file behind.
 */
export function serviceSettingsFrom(settings: Settings, options: MagisAppOptions = {}): ServiceSettings {
  const concurrency = options.concurrency ?? settings.jobs.concurrency;
  // Its heartbeat is a quarter of it, at most 5 s: below 3 s a busy database would have workers taken for lost.
  const lostAfterMs = options.workerLostMs ?? settings.jobs.workerLostSeconds * 1000;
  const objects = options.keepObjects === false ? undefined : objectCacheFrom(settings.git, options.workDir ?? settings.git.workDir ?? os.tmpdir());
  return { concurrency, lostAfterMs, objects, gitIdleTimeoutMs: settings.git.timeoutMs };
}

/**
 * Builds the job store, the queue, the runners of both job kinds (resolve an issue, revise a pull request) and the
 * trigger desk with every trigger rule, for one door (the App's Probot instance, or an Action's token).
 */
export function createServices(host: GitHubHost, options: MagisAppOptions = {}): MagisServices {
  // Probot's default export, run by `probot run`, gives no options: the process's environment is its door's.
  const env = options.env ?? process.env;
  // Read before anything runs (the sweeps below remove files), so that a mistyped value stops the app untouched.
  const settings = options.settings ?? readSettings(env, { door: "serve" });
  const { concurrency, lostAfterMs, objects, gitIdleTimeoutMs } = serviceSettingsFrom(settings, options);
  // Without a backend given (Probot's `probot run`, tests), the SQLite file magis serve opens, with the traces beside it.
  let backend = options.backend;
  let tracesBeside = "";
  if (!backend) {
    const dbFile = serveDatabaseFile(settings.store, process.cwd()).file;
    backend = new SqliteBackend(openDatabase(dbFile));
    tracesBeside = path.join(path.dirname(dbFile), "traces");
  }
  const { store } = backend;
  const role = options.role ?? "all";
  backend.checkRole(role);
  const { auth, bot, log } = host;
  const traceDir = options.traceDir ?? settings.jobs.traceDir ?? tracesBeside;
  const secrets = appSecrets(settings);
  const sandbox = options.sandbox ?? sandboxFor(settings, { env, log, envFile: options.envFile });
  const shared: Omit<ReviseJobServices, "revise"> = {
    auth,
    bot,
    // Both job kinds run the tests in the sandbox the door chose; credentials are kept from them and their output.
    commands: sandbox.sandbox ? { sandbox: sandbox.sandbox, secrets } : { why: sandbox.why },
    createLlm: (config, onTrace, signal) => {
      // On a shared server the operator pays for the models: a repository may choose only the ones it allows.
      if (options.repositoryModels !== "any") checkRepositoryModels(config, settings.model);
      return (options.createLlm ?? ((...args) => createLlm({ config: args[0], settings: settings.model, onTrace: args[1], signal: args[2] })))(
        config,
        onTrace,
        signal,
      );
    },
    gitBaseUrl: options.gitBaseUrl ?? settings.git.baseUrl,
    workDir: options.workDir ?? settings.git.workDir,
    objects,
    gitIdleTimeoutMs,
    log,
    now: Date.now,
    // Checkouts go here; a failure note names the folder, never its path.
    hostPaths: [options.workDir ?? settings.git.workDir ?? os.tmpdir(), os.tmpdir()],
    onTimings: (job, timings) => {
      log.info({ job: job.id, timings }, "job timings");
      options.onTimings?.(job, timings);
    },
    onTrace: (job, record) => {
      options.metrics?.modelUsage(record.agent, { calls: 1, promptTokens: record.usage.promptTokens, completionTokens: record.usage.completionTokens });
      if (!traceDir) return;
      fs.mkdirSync(traceDir, { recursive: true });
      fs.appendFileSync(path.join(traceDir, `job-${job.id}.jsonl`), `${JSON.stringify(record)}\n`);
    },
  };
  // Each job's language servers start on its checkout when first asked, and stop when its pipeline ends.
  const servers = options.languageServers ?? true;
  const resolve = resolveKind({
    ...shared,
    resolve: options.resolve ?? (servers ? (ctx, issue, memory) => withLanguageServers(ctx, (ctx) => resolveIssue(ctx, issue, memory)) : resolveIssue),
    memory: store.memory,
    // One memo of the store's index cache for the process: each job finds what earlier ones tokenized or read.
    terms: { cache: store.memory.index, memo: new TermMemo() },
  });
  const revise = reviseKind({
    ...shared,
    revise:
      options.revise ?? (servers ? (ctx, input, prepare) => withLanguageServers(ctx, (ctx) => revisePullRequest(ctx, input, prepare)) : revisePullRequest),
    jobs: store.jobs,
  });
  const runners = { [resolve.name]: jobRunner(shared, resolve), [revise.name]: jobRunner(shared, revise) };
  // Checkouts (and test runs) of processes killed mid-job go at start and every few minutes, whichever worker of the
  // machine finds them; kept objects age out even on a worker that clones nothing more, checked every hour.
  const sweeping =
    role === "web"
      ? []
      : [sweepCheckouts(shared.workDir ?? os.tmpdir(), log, options.checkoutSweepMs), ...(shared.objects ? [sweepObjects(shared.objects, log)] : [])];
  const runner = measured(forgetWhenCancelled(dispatchByKind(runners), store.memory, log), options.metrics);
  const queue = backend.createQueue(runner, {
    log,
    role,
    concurrency,
    lostAfterMs,
    // A job whose process died is said so on its issue, whichever process finds it.
    onAbandoned: async (job, how) => {
      if (how === "lost") options.metrics?.jobFinished(job.kind, "lost", 0);
      try {
        await reportInterruptedJob(await auth(job.installationId), job, how);
      } catch (error) {
        log.warn({ job: job.id, error: redactSecrets(String(error), []) }, "could not report an interrupted job on its issue");
      }
    },
    onFailed: (job, reason) => log.warn({ job: job.id, error: reason }, "job failed"),
  });
  // With a shared store, the web process that records a trigger holds it a while to decide it; then any may take it.
  const spoolDir = spoolFolder(settings, shared.workDir);
  if (!spoolDir && role !== "worker") {
    log.warn({}, "no spool folder (none of MAGIS_SPOOL_DIR, MAGIS_WORKDIR, HOME, XDG_CACHE_HOME is set): a delivery the store cannot take is answered 503");
  }
  const spool = spoolDir ? new TriggerSpool(spoolDir) : undefined;
  const desk = new TriggerDesk(store.triggers, triggerRules({ queue, bot, refusals: new RecentRefusals() }), {
    auth,
    log,
    leaseMs: backend.triggerLeaseMs,
    spool,
    onEvent: (event) => options.metrics?.triggerEvent(event),
    timing: options.deskTiming,
  });
  let started = false;
  const settled = async () => {
    // A decision may queue a job, and nothing queues a decision, so one pass of each in this order suffices.
    await desk.settled();
    await queue.drain();
  };
  const start = async () => {
    await backend.migrate(log);
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
  const forget = forgetUninstalled({ memory: store.memory, jobs: store.jobs, queue, log });
  return { queue, store, jobs: store.jobs, triggers: store.triggers, desk, start, settled, ready, stop, bot, forgetUninstalled: forget, sandbox };
}

/** The runner, with each job's start, end, outcome and duration counted in `metrics`. */
function measured(run: JobRunner, metrics: MagisMetrics | undefined): JobRunner {
  if (!metrics) return run;
  return async (job, progress) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    metrics.jobStarted(job.kind);
    try {
      const outcome = await run(job, progress);
      metrics.jobFinished(job.kind, outcome.status === "handed-back" ? "handed_back" : outcome.status, seconds());
      return outcome;
    } catch (error) {
      metrics.jobFinished(job.kind, "failed", seconds());
      throw error;
    }
  };
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
    env: door.env,
    secrets: door.secrets,
    botPaths: listBotPaths(settings, { cwd: door.cwd ?? process.cwd(), envFile: door.envFile }),
    container: { image: jobs.sandboxImage, engine: jobs.sandboxEngine },
  };
}

/** The app's own credentials: kept out of the repository's commands and redacted from what they print. */
function appSecrets(settings: Settings): (string | undefined)[] {
  return [settings.model.apiKey, settings.app.webhookSecret, settings.app.privateKey, settings.runner.token];
}
