import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Context, Probot } from "probot";
import { wholeNumberFrom } from "../lib/env-number.js";
import { dispatchByKind } from "../jobs/dispatch-by-kind.js";
import { InProcessQueue } from "../backends/sqlite/sqlite-queue.js";
import { atStartUp, DECISION_WAIT, DEFAULT_STORE_WAITS } from "../backends/sqlite/store-waits.js";
import type { JobQueue, JobRunner } from "../jobs/job-queue.js";
import { PostgresQueue } from "../backends/postgres/postgres-queue.js";
import type { MagisMetrics, ServeRole } from "../server/metrics.js";
import type { JobRecord } from "../store/jobs.js";
import { PostgresStore } from "../backends/postgres/postgres-store.js";
import { createLlm } from "../llm/client.js";
import { resolveLlmSettings } from "../llm/llm-settings.js";
import { TermMemo } from "../pipeline/locate/remember-terms.js";
import { resolveIssue } from "../pipeline/resolve-issue.js";
import { revisePullRequest } from "../pipeline/revise/revise-pull-request.js";
import { APP_LOCK_WAIT_MS, defaultDatabasePath, openDatabase, type Db } from "../backends/sqlite/database.js";
import { SqliteStore } from "../backends/sqlite/sqlite-store.js";
import type { JobStore, Store, TriggerStore } from "../store/store.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import { gitIdleMsFrom } from "../git/git-http-with-timeout.js";
import { DAY_MS, evict, objectCacheFrom, type ObjectCache } from "../git/object-cache.js";
import { removeLeftoverCheckouts } from "../git/remove-leftover-checkouts.js";
import { forgetUninstalled, forgetWhenCancelled } from "../triggers/rules/on-uninstalled.js";
import { reportInterruptedJob } from "../jobs/report-interrupted-job.js";
import { resolveJobRunner, type ResolveJobServices } from "../jobs/kinds/resolve/run.js";
import { reviseJobRunner, type ReviseJobServices } from "../jobs/kinds/revise/run.js";
import type { JobServices } from "../jobs/run-job.js";
import { TriggerDesk } from "../triggers/trigger-desk.js";
import { triggerRules } from "../triggers/trigger-rules.js";
import type { BotIdentity, Octokit } from "../github/types.js";

/** How the app is put together; every field has a default from the environment, tests replace some. */
export interface MagisAppOptions {
  /** Where MAGIS_DB, MAGIS_GIT_BASE_URL, MAGIS_WORKDIR, MAGIS_JOBS_CONCURRENCY, MAGIS_TRACE_DIR and the model settings are read. */
  env?: NodeJS.ProcessEnv;
  /** The store of job records, triggers and the evolution memory (default: the SQLite file MAGIS_DB or .magis/magis.db). */
  store?: Store;
  /** A SQLite database to use as the store (tests). */
  db?: Db;
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
  resolve?: ResolveJobServices["resolve"];
  revise?: ReviseJobServices["revise"];
  onTimings?: ResolveJobServices["onTimings"];
  /**
   * Whether the repository's `test_command` may run on this machine (default: MAGIS_ALLOW_EXEC=1). The Action always
   * allows it: the runner is the repository's own sandbox.
   */
  allowExec?: boolean;
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
  /** Resolves when the store answers and the queue has started; rejects saying what is not ready (GET /readyz). */
  ready(): Promise<void>;
  /**
   * Stops taking jobs; running ones may finish within `graceMs`, then a PostgreSQL worker hands them back to the queue
   * (the embedded queue cancels them: no other process could take them). Resolves once none runs.
   */
  stop(graceMs: number): Promise<void>;
  /** The app's bot identity (asked of GitHub once); triggers compare pull request authors with its login. */
  bot: () => Promise<BotIdentity>;
  /** Probot's handler of UNINSTALL_EVENTS: forgets what the memory holds of the repositories the app lost (see forgetUninstalled). */
  forgetUninstalled: (context: Context<any>) => Promise<void>;
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
 * The settings createServices reads from the environment, each checked: a mistyped one throws, naming it and saying
 * what to set (see wholeNumberFrom). `magis serve` reads them before it opens its store too, so that such a mistake
 * leaves no database file behind.
 */
export function serviceSettingsFrom(env: NodeJS.ProcessEnv, options: MagisAppOptions = {}): ServiceSettings {
  const concurrency =
    options.concurrency ?? wholeNumberFrom(env, "MAGIS_JOBS_CONCURRENCY", { fallback: 2, min: 1, meaning: "the jobs one process runs at once" });
  // Its heartbeat is a quarter of it, at most 5 s: below 3 s a busy database would have workers taken for lost.
  const lostAfterMs =
    options.workerLostMs ??
    wholeNumberFrom(env, "MAGIS_WORKER_LOST_SECONDS", {
      fallback: 60,
      min: 3,
      max: 86_400,
      meaning: "the seconds a worker may stay silent before it is taken for lost",
    }) * 1000;
  // Each job reads the model's settings with its repository's config; read once here too, a mistyped one stops the
  // app when it starts instead of failing every job.
  if (!options.createLlm) resolveLlmSettings({ env });
  const objects = options.keepObjects === false ? undefined : objectCacheFrom(env, options.workDir ?? (env.MAGIS_WORKDIR || os.tmpdir()));
  return { concurrency, lostAfterMs, objects, gitIdleTimeoutMs: gitIdleMsFrom(env) };
}

/**
 * Builds the job store, the queue, the runners of both job kinds (resolve an issue, revise a pull request) and the
 * trigger desk with every trigger rule, for one door (the App's Probot instance, or an Action's token).
 */
export function createServices(host: GitHubHost, options: MagisAppOptions = {}): MagisServices {
  const env = options.env ?? process.env;
  // Read before anything runs (the sweeps below remove files), so that a mistyped value stops the app untouched.
  const { concurrency, lostAfterMs, objects, gitIdleTimeoutMs } = serviceSettingsFrom(env, options);
  const dbFile = defaultDatabasePath(env);
  const store = options.store ?? new SqliteStore(options.db ?? openDatabase(dbFile));
  const role = options.role ?? "all";
  if (role !== "all" && !(store instanceof PostgresStore)) {
    throw new Error(
      `--role ${role} needs a store several processes share: set DATABASE_URL to a PostgreSQL database (the SQLite file serves one process, --role all)`,
    );
  }
  // This thread also answers webhooks: SQLite may wait on another process's lock only briefly (see APP_LOCK_WAIT_MS).
  if (store instanceof SqliteStore) store.db.pragma(`busy_timeout = ${APP_LOCK_WAIT_MS}`);
  const { auth, bot, log } = host;
  const traceDir = options.traceDir ?? env.MAGIS_TRACE_DIR ?? (options.db ? "" : path.join(path.dirname(dbFile), "traces"));
  const allowExec = options.allowExec ?? env.MAGIS_ALLOW_EXEC === "1";
  const shared: Omit<ReviseJobServices, "revise"> = {
    auth,
    bot,
    // Where repository code may run, both job kinds run the tests; credentials are kept from them and their output.
    exec: allowExec ? { env, secrets: [env.OPENAI_API_KEY, env.WEBHOOK_SECRET, env.PRIVATE_KEY, env.GITHUB_TOKEN] } : undefined,
    createLlm: options.createLlm ?? ((config, onTrace, signal) => createLlm({ config, env, onTrace, signal })),
    gitBaseUrl: options.gitBaseUrl ?? (env.MAGIS_GIT_BASE_URL || undefined),
    workDir: options.workDir ?? (env.MAGIS_WORKDIR || undefined),
    objects,
    gitIdleTimeoutMs,
    log,
    now: Date.now,
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
  const runners = {
    // One memo of the store's index cache for the process: each job finds what earlier ones tokenized or read.
    "resolve-issue": resolveJobRunner({
      ...shared,
      resolve: options.resolve ?? resolveIssue,
      memory: store.memory,
      terms: { cache: store.memory.index, memo: new TermMemo() },
    }),
    "revise-pull-request": reviseJobRunner({ ...shared, revise: options.revise ?? revisePullRequest }),
  };
  if (store instanceof PostgresStore && role !== "web" && (store.pool.options.max ?? 10) < concurrency + 2) {
    log.warn(
      { poolSize: store.pool.options.max, concurrency },
      "MAGIS_DB_POOL_SIZE is not above MAGIS_JOBS_CONCURRENCY + 1: jobs waiting for another process's index write may wait for a connection too; raise MAGIS_DB_POOL_SIZE",
    );
  }
  if (role !== "web") removeCheckoutsOfKilledProcesses(shared.workDir ?? os.tmpdir(), log);
  // Kept objects age out even on a worker that clones nothing more: checked at start and every hour.
  const sweeping = role !== "web" && shared.objects ? sweepObjects(shared.objects, log) : undefined;
  const runner = measured(forgetWhenCancelled(dispatchByKind(runners), store.memory, log), options.metrics);
  // A job whose process died is said so on its issue, whichever process finds it.
  const reportStopped = async (job: JobRecord) => {
    try {
      await reportInterruptedJob(await auth(job.installationId), job);
    } catch (error) {
      log.warn({ job: job.id, error: redactSecrets(String(error), []) }, "could not report an interrupted job on its issue");
    }
  };
  const onFailed = (job: JobRecord, error: unknown) => log.warn({ job: job.id, error: error instanceof Error ? error.message : String(error) }, "job failed");
  const queue: JobQueue =
    store instanceof PostgresStore
      ? new PostgresQueue(store, runner, {
          log,
          role,
          concurrency,
          lostAfterMs,
          onLost: async (job) => {
            options.metrics?.jobFinished(job.kind, "lost", 0);
            await reportStopped(job);
          },
          onFailed,
        })
      : new InProcessQueue(store.jobs, runner, {
          log,
          // Jobs are submitted and cancelled by the trigger desk's decisions, after the webhook was answered: those calls
          // may wait longer for a lock than a webhook could (recording the webhook itself keeps the short wait).
          storeWaits: { ...DEFAULT_STORE_WAITS, webhook: DECISION_WAIT },
          concurrency,
          onInterrupted: reportStopped,
          onFailed,
        });
  // With a shared store, the web process that records a trigger holds it a minute to decide it; then any may take it.
  const desk = new TriggerDesk(store.triggers, triggerRules(queue, bot), { auth, log, leaseMs: store.kind === "postgres" ? 60_000 : 0 });
  let started = false;
  const settled = async () => {
    // A decision may queue a job, and nothing queues a decision, so one pass of each in this order suffices.
    await desk.settled();
    await queue.drain();
  };
  const start = async () => {
    await atStartUp(() => store.migrate(), store.where, log);
    await queue.start();
    if (role !== "worker") await desk.start();
    started = true;
  };
  const ready = async () => {
    if (!started) throw new Error("the app is still starting (migrating the store, starting the queue)");
    await store.ping();
  };
  const stop = async (graceMs: number) => {
    sweeping?.stop();
    desk.stop();
    await desk.settled();
    await queue.stop(graceMs);
  };
  const forget = forgetUninstalled({ memory: store.memory, jobs: store.jobs, queue, log });
  return { queue, store, jobs: store.jobs, triggers: store.triggers, desk, start, settled, ready, stop, bot, forgetUninstalled: forget };
}

/** The runner, with each job's start, end, outcome and duration counted in `metrics`. */
function measured(run: JobRunner, metrics: MagisMetrics | undefined): JobRunner {
  if (!metrics) return run;
  return async (job, progress) => {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    metrics.jobStarted(job.kind);
    try {
      const detail = await run(job, progress);
      metrics.jobFinished(job.kind, "succeeded", seconds());
      return detail;
    } catch (error) {
      const handedBack = (progress.signal.reason as { handedBack?: unknown } | undefined)?.handedBack === true;
      const cancelled = progress.signal.aborted || (error as { cancelled?: unknown }).cancelled === true;
      metrics.jobFinished(job.kind, handedBack ? "handed_back" : cancelled ? "cancelled" : "failed", seconds());
      throw error;
    }
  };
}

/** How often a worker removes the kept objects of repositories no job used for MAGIS_OBJECT_CACHE_DAYS. */
const SWEEP_MS = 3600 * 1000;

/**
 * Removes the stale kept objects now (see evict), and again every `everyMs` until stopped; the timer keeps no process
 * alive. A failure is logged, and the next sweep tries again.
 */
export function sweepObjects(cache: ObjectCache, log: GitHubHost["log"], everyMs = SWEEP_MS): { stop: () => void } {
  const sweep = () => {
    try {
      const removed = evict(cache);
      if (removed === 0) return;
      const days = Math.round((cache.maxAgeMs ?? 0) / DAY_MS);
      const which = removed === 1 ? "1 repository" : `${removed} repositories`;
      log.info(
        { dir: cache.dir, removed },
        `removed the kept objects of ${which} no job used for ${days === 1 ? "a day" : `${days} days`}, or past the cache's size`,
      );
    } catch (error) {
      log.warn({ dir: cache.dir, error: error instanceof Error ? error.message : String(error) }, "could not remove stale kept objects");
    }
  };
  sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** A process killed mid-job leaves its checkout behind; removed at start-up, before this process makes its own. */
function removeCheckoutsOfKilledProcesses(workDir: string, log: GitHubHost["log"]): void {
  const { removed, failed } = removeLeftoverCheckouts(workDir);
  if (removed.length > 0) log.info({ workDir, removed }, `removed ${removed.length} checkouts left behind by processes that are gone`);
  for (const { path: folder, error } of failed) log.warn({ folder, error }, "could not remove a checkout left behind by a process that is gone");
}

/** The App's door: installation clients and the log from Probot, the bot login from the app's slug. */
export function probotHost(app: Probot): GitHubHost {
  const slugLogin = async () => {
    const asApp = (await app.auth()) as Octokit;
    const { data: self } = await asApp.rest.apps.getAuthenticated();
    return `${self!.slug}[bot]`;
  };
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
