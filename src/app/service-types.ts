import type { Context } from "probot";
import type { Backend } from "../backends/backend.js";
import type { EnvironmentShelf } from "../environment/index.js";
import type { BotIdentity, Octokit } from "../github/types.js";
import type { JobQueue, ServeRole } from "../jobs/job-queue.js";
import type { ResolveJobServices } from "../jobs/kinds/resolve/run.js";
import type { JobServices } from "../jobs/run-job.js";
import type { SandboxChoice } from "../sandbox/index.js";
import type { MagisMetrics } from "../server/metrics.js";
import type { JobStore, Store, TriggerStore } from "../store/store.js";
import type { UninstallEvent } from "../triggers/rules/on-uninstalled.js";
import type { TriggerDeskOptions } from "../triggers/desk/desk-options.js";
import type { TriggerDesk } from "../triggers/trigger-desk.js";
import type { Settings } from "./settings/settings-table.js";

/**
 * How the app is put together: what the operator set, and the parts put in place of the defaults. Without `settings`
 * (Probot's `probot run`), the process's environment is read as `magis serve` reads it.
 */
export interface MagisAppOptions {
  settings?: ServiceSettings;
  seams?: ServiceSeams;
}

/** What the operator set, as the door read it: the settings table's values, and the door's environment, role and files. */
export interface ServiceSettings {
  /**
   * Every setting, read and checked when the door started (readSettings): a mistyped one stopped it before anything ran.
   * A door may fix some for itself (the Action runs one job, and keeps no objects for a next run).
   */
  values: Settings;
  /** The environment the repository's commands run in, without its secrets (see commandEnv). */
  env: NodeJS.ProcessEnv;
  /**
   * What this process does (default `all`): `web` takes webhooks and queues jobs, `worker` runs them, `all` both. Only a
   * PostgreSQL store can be shared by several processes, so `web` and `worker` need one.
   */
  role?: ServeRole;
  /** The `.env` file the door read its settings from (default: .env in the working directory): hidden from the sandbox. */
  envFile?: string;
  /**
   * Whether a repository's config may choose any model (`any`: the Action, where the repository is its own operator),
   * or only those the operator set or allows in MAGIS_ALLOWED_MODELS (default).
   */
  repositoryModels?: "allowed" | "any";
  /**
   * Whether jobs check attempts with language servers (Pyright, the TypeScript server) installed beside the app (default
   * true; the repository's `diagnostics.enabled` may still turn them off). The Action's bundle carries none.
   */
  languageServers?: boolean;
  /**
   * Why a job of this door cannot wait for `/magis go` (`plan_approval`), when it cannot: the Action's run ends with
   * its job, and a comment starts another run that cannot reach it. Absent: jobs wait (the App).
   */
  noPlanApproval?: string;
}

/**
 * The parts a door or a test puts in place of the defaults: the store a door opened, its metrics and sandbox; the model,
 * the hooks and the pauses a test watches or shortens.
 */
export interface ServiceSeams {
  /**
   * The database of job records, triggers and the evolution memory, with its queue (default: the SQLite file of
   * serveDatabaseFile, with the traces beside it). Given one, traces are off unless MAGIS_TRACE_DIR says where.
   */
  backend?: Backend;
  /**
   * What the repository's `setup_command` and `test_command` run in, or why they do not run here (default: as
   * MAGIS_SANDBOX says, chosen once by chooseSandbox).
   */
  sandbox?: SandboxChoice;
  /** Where job outcomes and model usage are counted (the serve command's /metrics). */
  metrics?: MagisMetrics;
  /**
   * Where the environments jobs built are kept (default: as MAGIS_ENV_DIR and MAGIS_ENV_CACHE_MB say, see
   * environmentShelfFor); given as undefined, none are kept.
   */
  environments?: EnvironmentShelf;
  /** The model client of a job (default: OpenAI's SDK with the operator's model settings). */
  createLlm?: ResolveJobServices["createLlm"];
  /** Told each job's phase timings, besides the log. */
  onTimings?: ResolveJobServices["onTimings"];
  /** Called once the app's parts exist (tests wait on the queue through it). */
  onReady?: (services: MagisServices) => void;
  /** How often a worker looks for checkouts processes killed mid-job left (default every five minutes; tests shorten it). */
  checkoutSweepMs?: number;
  /** How often the desk replays spooled deliveries and first tries a failed decision again (tests shorten them). */
  deskTiming?: TriggerDeskOptions["timing"];
  /** What jobs' time limits count on (default the machine's clock; a test moves one by hand). */
  limitClock?: ResolveJobServices["limitClock"];
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
