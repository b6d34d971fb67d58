/**
 * A job's session as the store keeps it: an ordered list of entries written while the job runs (stages, model calls,
 * commands, attempts, the outcome; see src/session/types.ts for their shapes), read back by the session page and by
 * `magis session export`. Each entry is JSON of at most a bounded size: the writer (src/session's recorder) bounds and
 * redacts before anything reaches the store.
 */
export interface SessionRow {
  jobId: number;
  /** 1, 2, 3 … within the job, in the order written; the store assigns it. */
  seq: number;
  /** When the entry was made (milliseconds since the epoch). */
  at: number;
  /** The entry's kind (`stage`, `model-call`, `command`, …): a SessionEntry's `kind`. */
  kind: string;
  /** The entry's data, as JSON text. */
  data: string;
}

/** An entry to append: its time, kind and JSON data; the store numbers it. */
export type NewSessionRow = Omit<SessionRow, "jobId" | "seq">;

/** The sessions of jobs, in the same database as their records. */
export interface SessionStore {
  /**
   * Appends entries to a job's session, numbered after those it holds, in the order given (one transaction); appenders
   * of one job in several processes at once number theirs one after the other, never the same number twice.
   */
  append(jobId: number, rows: readonly NewSessionRow[]): Promise<void>;
  /** A job's entries with `seq` above `afterSeq` (default 0), in order, at most `limit` (default all). */
  read(jobId: number, options?: { afterSeq?: number; limit?: number }): Promise<SessionRow[]>;
  /** Characters of JSON a job's session holds (UTF-16 code units, as a string's length), for the per-job bound and the benchmark of the store's size. */
  bytes(jobId: number): Promise<number>;
  /** Removes the sessions of jobs that ended (succeeded, failed, cancelled, declined) before `before`; says how many jobs' sessions went. */
  prune(before: number): Promise<number>;
  /**
   * Removes the sessions of jobs of the repositories `repos` names (`owner/name`) and of the accounts `owners` names (an
   * installation removed), compared in lowercase as repositoryKey names them; says how many jobs' sessions went.
   */
  forget(which: { repos?: string[]; owners?: string[] }): Promise<number>;
}
