import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Probot } from "probot";
import { dispatchByKind } from "../jobs/dispatch-by-kind.js";
import { InProcessQueue } from "../jobs/in-process-queue.js";
import type { JobQueue } from "../jobs/job-queue.js";
import { createLlm } from "../llm/client.js";
import { resolveIssue } from "../pipeline/resolve-issue.js";
import { revisePullRequest } from "../pipeline/revise/revise-pull-request.js";
import { APP_LOCK_WAIT_MS, defaultDatabasePath, openDatabase, type Db } from "../store/database.js";
import { JobStore } from "../store/jobs.js";
import { EvolutionMemory } from "../store/memory.js";
import { redactSecrets } from "../redact-secrets.js";
import { removeLeftoverCheckouts } from "../workspace/remove-leftover-checkouts.js";
import { reportInterruptedJob } from "./report-interrupted-job.js";
import { resolveJobRunner, type ResolveJobServices } from "./run-resolve-job.js";
import { reviseJobRunner, type ReviseJobServices } from "./run-revise-job.js";
import type { BotIdentity, Octokit } from "./types.js";

/** How the app is put together; every field has a default from the environment, tests replace some. */
export interface MagisAppOptions {
  /** Where MAGIS_DB, MAGIS_GIT_BASE_URL, MAGIS_WORKDIR, MAGIS_JOBS_CONCURRENCY, MAGIS_TRACE_DIR and the model settings are read. */
  env?: NodeJS.ProcessEnv;
  /** The SQLite database of job records and the evolution memory (default: MAGIS_DB or .magis/magis.db). */
  db?: Db;
  /** Origin the repositories are cloned from instead of the API's clone_url (MAGIS_GIT_BASE_URL). */
  gitBaseUrl?: string;
  /** Directory the checkouts go in (MAGIS_WORKDIR, default the system's temp directory; a tmpfs is fastest). */
  workDir?: string;
  /** Most jobs at once (MAGIS_JOBS_CONCURRENCY, default 2). */
  concurrency?: number;
  /** Directory of per-job model traces (MAGIS_TRACE_DIR, default `traces/` beside the database); "" turns them off. */
  traceDir?: string;
  createLlm?: ResolveJobServices["createLlm"];
  resolve?: ResolveJobServices["resolve"];
  revise?: ReviseJobServices["revise"];
  onTimings?: ResolveJobServices["onTimings"];
  /** Called once the app's parts exist (tests wait on the queue through it). */
  onReady?: (services: MagisServices) => void;
}

/** The parts of a running app that outlive one webhook. */
export interface MagisServices {
  queue: JobQueue;
  store: JobStore;
  db: Db;
  /** The app's bot identity (asked of GitHub once); triggers compare pull request authors with its login. */
  bot: (installation: Octokit) => Promise<BotIdentity>;
}

/** Builds the job store, the queue and the runners of both job kinds (resolve an issue, revise a pull request) for a Probot instance. */
export function createServices(app: Probot, options: MagisAppOptions = {}): MagisServices {
  const env = options.env ?? process.env;
  const dbFile = defaultDatabasePath(env);
  const db = options.db ?? openDatabase(dbFile);
  // This thread also answers webhooks: SQLite may wait on another process's lock only briefly (see APP_LOCK_WAIT_MS).
  db.pragma(`busy_timeout = ${APP_LOCK_WAIT_MS}`);
  const store = new JobStore(db);
  const auth = (installationId: number) => app.auth(installationId) as Promise<Octokit>;
  const traceDir = options.traceDir ?? env.MAGIS_TRACE_DIR ?? (options.db ? "" : path.join(path.dirname(dbFile), "traces"));
  const bot = botIdentity(app);
  const shared: Omit<ReviseJobServices, "revise"> = {
    auth,
    bot,
    createLlm: options.createLlm ?? ((config, onTrace) => createLlm({ config, env, onTrace })),
    gitBaseUrl: options.gitBaseUrl ?? (env.MAGIS_GIT_BASE_URL || undefined),
    workDir: options.workDir ?? (env.MAGIS_WORKDIR || undefined),
    log: app.log,
    now: Date.now,
    onTimings: (job, timings) => {
      app.log.info({ job: job.id, timings }, "job timings");
      options.onTimings?.(job, timings);
    },
    onTrace: traceDir
      ? (job, record) => {
          fs.mkdirSync(traceDir, { recursive: true });
          fs.appendFileSync(path.join(traceDir, `job-${job.id}.jsonl`), `${JSON.stringify(record)}\n`);
        }
      : undefined,
  };
  const runners = {
    "resolve-issue": resolveJobRunner({ ...shared, resolve: options.resolve ?? resolveIssue, memory: new EvolutionMemory(db) }),
    "revise-pull-request": reviseJobRunner({ ...shared, revise: options.revise ?? revisePullRequest }),
  };
  removeCheckoutsOfKilledProcesses(shared.workDir ?? os.tmpdir(), app);
  const queue = new InProcessQueue(store, dispatchByKind(runners), {
    log: app.log,
    concurrency: options.concurrency ?? (Number(env.MAGIS_JOBS_CONCURRENCY) || 2),
    onInterrupted: async (job) => {
      try {
        await reportInterruptedJob(await auth(job.installationId), job);
      } catch (error) {
        app.log.warn({ job: job.id, error: redactSecrets(String(error), []) }, "could not report an interrupted job on its issue");
      }
    },
    onFailed: (job, error) => app.log.warn({ job: job.id, error: error instanceof Error ? error.message : String(error) }, "job failed"),
  });
  return { queue, store, db, bot };
}

/** A process killed mid-job leaves its checkout behind; removed at start-up, before this process makes its own. */
function removeCheckoutsOfKilledProcesses(workDir: string, app: Probot): void {
  const { removed, failed } = removeLeftoverCheckouts(workDir);
  if (removed.length > 0) app.log.info({ workDir, removed }, `removed ${removed.length} checkouts left behind by processes that are gone`);
  for (const { path: folder, error } of failed) app.log.warn({ folder, error }, "could not remove a checkout left behind by a process that is gone");
}

/** The app's bot login and commit identity, asked of GitHub once: the slug as the app (JWT), the bot user's id as an installation. */
function botIdentity(app: Probot): (installation: Octokit) => Promise<BotIdentity> {
  let cached: Promise<BotIdentity> | null = null;
  return (installation) => {
    cached ??= (async () => {
      const asApp = (await app.auth()) as Octokit;
      const { data: self } = await asApp.rest.apps.getAuthenticated();
      const login = `${self!.slug}[bot]`;
      const { data: user } = await installation.rest.users.getByUsername({ username: login });
      return { login, name: login, email: `${user.id}+${login}@users.noreply.github.com` };
    })().catch((error: unknown) => {
      cached = null;
      throw error;
    });
    return cached;
  };
}
