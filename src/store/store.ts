import type { JobRecord, JobStatus, NewJob } from "./jobs.js";
import type { SessionStore } from "./sessions.js";
import type { NewTrigger, TriggerOutcome, TriggerRecord } from "./triggers.js";

/**
 * The store behind the app: job records and their sessions, webhook triggers, the evolution memory and the index cache. Two
 * implementations keep the same contract (test/contract): SQLite in one file (the embedded default, nothing to set
 * up) and PostgreSQL (`DATABASE_URL`), which several processes on several machines share.
 */
export interface Store {
  /** `sqlite` or `postgres`: what holds the records. */
  readonly kind: "sqlite" | "postgres";
  /** Where the records are, for messages an operator acts on: the SQLite file, or the PostgreSQL host and database (never its password). */
  readonly where: string;
  readonly jobs: JobStore;
  readonly triggers: TriggerStore;
  readonly memory: MemoryStore;
  /** What each job did, entry by entry (the session page, `magis session export`); kept MAGIS_SESSION_DAYS after the job ends. */
  readonly sessions: SessionStore;
  /** Applies the migrations this version knows and the database lacks; safe when several processes start at once. Returns the versions applied. */
  migrate(): Promise<number[]>;
  /** Whether the database answers now (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Job records. A job's delivery id is unique: a second job with the same id is never recorded. */
export interface JobStore {
  /** Where the records are (for messages). */
  readonly where: string;
  /** Records a job with the given status; null when its delivery was recorded before (a redelivery). */
  add(job: NewJob, status?: "queued" | "declined", detail?: string | null): Promise<JobRecord | null>;
  /** Whether a delivery id was recorded already. */
  seen(delivery: string): Promise<boolean>;
  get(id: number): Promise<JobRecord | null>;
  /** The job recorded last, if any; with `which`, the last of those with that key, kind and status. */
  newest(which?: { key: string; kind: string; status: JobStatus }): Promise<JobRecord | null>;
  /** Jobs in a status, oldest first. */
  withStatus(status: JobStatus): Promise<JobRecord[]>;
  /** Marks a job running, in its first stage, on `worker` (the process running it; null in the embedded app). */
  start(id: number, stage: string, worker?: string | null): Promise<void>;
  /** Records the stage a running job has reached. */
  setStage(id: number, stage: string): Promise<void>;
  /** Marks a job succeeded, with what it produced (a PR URL). */
  succeed(id: number, detail: string): Promise<void>;
  /** Marks a job failed, keeping the stage it was in unless `stage` names another, with the reason in plain words. */
  fail(id: number, reason: string, stage?: string): Promise<void>;
  /** Marks jobs cancelled, all or none, with the reason in plain words. */
  cancel(ids: readonly number[], reason: string): Promise<void>;
  /** How many jobs are queued and running, by kind (for /metrics). */
  depth(): Promise<Array<{ kind: string; status: "queued" | "running"; count: number }>>;
}

/** Every webhook the app took as a possible trigger, with what it decided and why. */
export interface TriggerStore {
  readonly where: string;
  /**
   * Records a delivery to be decided, leased to the recording process for `leaseMs` (the others leave it alone that
   * long); false when it was recorded before (and not failed), which must not act twice.
   */
  record(trigger: NewTrigger, leaseMs?: number): Promise<boolean>;
  /** Records what was decided about a delivery, and why; drops the payload unless the decision failed. */
  decide(delivery: string, outcome: TriggerOutcome, detail: string): Promise<void>;
  get(delivery: string): Promise<TriggerRecord | null>;
  /**
   * Takes the triggers not decided yet whose lease ran out (their recorder stopped before deciding them, or is far
   * behind), leasing each to the caller for `leaseMs`, oldest first; of processes asking at once, each gets others.
   */
  claimUndecided(leaseMs: number): Promise<TriggerRecord[]>;
  /** Every trigger, oldest first. */
  all(): Promise<TriggerRecord[]>;
}

/** What the memory holds of one file: the last version seen (blob id and text) and its summary. */
export interface RememberedFile {
  blobId: string;
  summary: string;
  text: string;
}

/** The repository evolution memory (MAGIS Algorithm 1): per repository and path, the last summarized version of a file. */
export interface MemoryStore {
  recall(repo: string, path: string): Promise<RememberedFile | null>;
  remember(repo: string, path: string, file: RememberedFile, now?: number): Promise<void>;
  /**
   * Forgets every file of the repositories `repos` names (`owner/name`, as remembered) and of every repository of the
   * accounts `owners` names (an installation removed); says how many files it forgot.
   */
  forget(which: { repos?: string[]; owners?: string[] }): Promise<number>;
  /** The Custodian's index of files' terms and definitions by blob id, in the same database. */
  readonly index: TermCache;
}

/** Bytes the index cache may hold by default (terms and definitions of about 100,000 source files) before the least recently used are evicted. */
export const DEFAULT_INDEX_CACHE_BYTES = 256 * 1024 * 1024;

/** What indexing learned of each file, by cache key (blob id and extension); values are JSON. Bounded, least recently used evicted. */
export interface TermCache {
  /** The stored terms of those keys it holds. */
  readTerms(keys: string[]): Promise<Map<string, string>>;
  /** Stores new terms and marks `used` as used now, then evicts past the bound. */
  writeTerms(entries: Array<[key: string, json: string]>, used: string[]): Promise<void>;
  /** The stored definitions of a key, or null when never parsed (or not held). */
  readDefinitions(key: string): Promise<string | null>;
  /** Stores the definitions of a key whose terms are held (nothing happens otherwise). */
  writeDefinitions(key: string, json: string): Promise<void>;
  /** Bytes held (characters of JSON). */
  bytes(): Promise<number>;
  /** Forgets everything (benchmarks start cold). */
  clear(): Promise<void>;
}

/**
 * The job store stayed locked by another process longer than a webhook can wait, so nothing was recorded.
 * Probot's middleware answers a webhook whose handler throws this with its `status` (503), so the delivery shows
 * as failed in the app's settings, where it can be redelivered.
 */
export class JobStoreBusyError extends Error {
  readonly status = 503;

  constructor(file: string, waitedMs: number, cause: unknown) {
    super(
      `the job store (${file}) stayed locked by another process for ${waitedMs} ms, so this delivery was not recorded; ` +
        "redeliver it (the GitHub App's settings → Advanced → Recent Deliveries) once the other process lets go of the database",
      { cause },
    );
    this.name = "JobStoreBusyError";
  }
}
