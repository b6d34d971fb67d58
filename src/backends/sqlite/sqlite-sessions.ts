import { deflateRawSync, inflateRawSync } from "node:zlib";
import { prepareLater, type Db, type Transaction } from "./database.js";
import { retryWhileLocked, type LockWait } from "./retry-while-locked.js";
import { DECISION_WAIT } from "./store-waits.js";
import type { NewSessionRow, SessionRow, SessionStore } from "../../store/sessions.js";
import { ENDED_STATUSES } from "../ended-statuses.js";

/** The jobs whose sessions `prune` removes: ended (ENDED_STATUSES) before the time given. */
const ENDED_BEFORE = `SELECT id FROM jobs WHERE status IN (${ENDED_STATUSES.map((status) => `'${status}'`).join(", ")}) AND updated_at < ?`;

/**
 * The jobs whose sessions `forget` removes: of the repositories (a JSON array of `owner/name`) or of the accounts (a
 * JSON array of logins). Names are compared whole and in lowercase, as the app names repositories (repositoryKey):
 * no LIKE, whose `_` is a wildcard.
 */
const OF_REPOSITORIES = `SELECT id FROM jobs WHERE lower(owner || '/' || repo) IN (SELECT value FROM json_each(?))
  OR lower(owner) IN (SELECT value FROM json_each(?))`;

/**
 * Jobs' sessions in the SQLite file (table `session_entries`). An append numbers its entries after the job's highest
 * inside one IMMEDIATE transaction, which holds the file's write lock from its first read: two appenders of one job,
 * in this process or another, never take the same number. Another process's lock is waited out on timers for up to a
 * minute (a session entry is worth less than the job that writes it, which must not stall on it for long).
 *
 * Each entry's JSON is stored raw-deflated, as the evolution memory's texts are: prompts, answers and outputs take about
 * a third of their size in the file, which holds every session of the last MAGIS_SESSION_DAYS (PostgreSQL compresses
 * them itself). Its length as text is stored beside it, for `bytes`.
 */
export class SqliteSessionStore implements SessionStore {
  private readonly highest = prepareLater(() =>
    this.db.prepare<[number], { seq: number }>("SELECT coalesce(max(seq), 0) AS seq FROM session_entries WHERE job_id = ?"),
  );
  private readonly insert = prepareLater(() =>
    this.db.prepare<[number, number, number, string, Uint8Array, number]>(
      "INSERT INTO session_entries (job_id, seq, at, kind, data, chars) VALUES (?, ?, ?, ?, ?, ?)",
    ),
  );
  private readonly appendAll: Transaction<[number, readonly NewSessionRow[]], void>;

  constructor(
    private readonly db: Db,
    private readonly wait: LockWait = DECISION_WAIT,
  ) {
    this.appendAll = db.transaction((jobId: number, rows: readonly NewSessionRow[]) => {
      let seq = this.highest().get(jobId)!.seq;
      for (const row of rows) this.insert().run(jobId, ++seq, row.at, row.kind, deflateRawSync(Buffer.from(row.data, "utf8")), row.data.length);
    });
  }

  async append(jobId: number, rows: readonly NewSessionRow[]): Promise<void> {
    if (rows.length === 0) return;
    await retryWhileLocked(() => this.appendAll.immediate(jobId, rows), this.wait);
  }

  async read(jobId: number, { afterSeq = 0, limit }: { afterSeq?: number; limit?: number } = {}): Promise<SessionRow[]> {
    // LIMIT -1 is SQLite's "no limit".
    const rows = this.db
      .prepare<[number, number, number], { seq: number; at: number; kind: string; data: Uint8Array }>(
        "SELECT seq, at, kind, data FROM session_entries WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      )
      .all(jobId, afterSeq, limit ?? -1);
    return rows.map((row) => ({ jobId, seq: row.seq, at: row.at, kind: row.kind, data: inflateRawSync(row.data).toString("utf8") }));
  }

  async bytes(jobId: number): Promise<number> {
    return this.db.prepare<[number], { bytes: number }>("SELECT coalesce(sum(chars), 0) AS bytes FROM session_entries WHERE job_id = ?").get(jobId)!.bytes;
  }

  prune(before: number): Promise<number> {
    return this.removeSessions(ENDED_BEFORE, [before]);
  }

  async forget({ repos = [], owners = [] }: { repos?: string[]; owners?: string[] }): Promise<number> {
    if (repos.length === 0 && owners.length === 0) return 0;
    const lower = (names: string[]) => JSON.stringify(names.map((name) => name.toLowerCase()));
    return this.removeSessions(OF_REPOSITORIES, [lower(repos), lower(owners)]);
  }

  /** Removes the sessions of the jobs `jobs` (a SELECT of ids) selects, in one transaction; says how many jobs had one. */
  private removeSessions(jobs: string, params: (string | number)[]): Promise<number> {
    const count = this.db.prepare<(string | number)[], { n: number }>(`SELECT count(DISTINCT job_id) AS n FROM session_entries WHERE job_id IN (${jobs})`);
    const remove = this.db.prepare<(string | number)[]>(`DELETE FROM session_entries WHERE job_id IN (${jobs})`);
    const removeAll = this.db.transaction(() => {
      const held = count.get(...params)!.n;
      if (held > 0) remove.run(...params);
      return held;
    });
    return retryWhileLocked(() => removeAll.immediate(), this.wait);
  }
}
