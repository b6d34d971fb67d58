import type pg from "pg";
import type { NewSessionRow, SessionRow, SessionStore } from "../../store/sessions.js";
import { ENDED_STATUSES } from "../ended-statuses.js";
import { SESSION_LOCKS } from "./advisory-locks.js";
import { inTransaction } from "./in-transaction.js";

/**
 * Jobs' sessions in PostgreSQL (table `session_entries`), which the workers that run jobs write and every web process
 * reads. An append takes the job's advisory lock for its transaction before it reads the job's highest number, so two
 * appenders of one job, in any processes, number their entries one after the other; appenders of different jobs do
 * not wait for each other. The entries go in as one INSERT, numbered by their order in the arrays.
 */
export class PostgresSessionStore implements SessionStore {
  constructor(private readonly pool: pg.Pool) {}

  async append(jobId: number, rows: readonly NewSessionRow[]): Promise<void> {
    if (rows.length === 0) return;
    await inTransaction(this.pool, async (client) => {
      // Job ids are BIGINT; the lock's second key is an int: ids past 2^31 share locks, which only makes them wait.
      await client.query("SELECT pg_advisory_xact_lock($1, ($2::bigint % 2147483648)::int)", [SESSION_LOCKS, jobId]);
      await client.query(
        `INSERT INTO session_entries (job_id, seq, at, kind, data, chars)
         SELECT $1, (SELECT coalesce(max(seq), 0) FROM session_entries WHERE job_id = $1) + n, at, kind, data, chars
         FROM unnest($2::bigint[], $3::text[], $4::text[], $5::int[]) WITH ORDINALITY AS entry (at, kind, data, chars, n)`,
        [jobId, rows.map((row) => row.at), rows.map((row) => row.kind), rows.map((row) => row.data), rows.map((row) => row.data.length)],
      );
    });
  }

  async read(jobId: number, { afterSeq = 0, limit }: { afterSeq?: number; limit?: number } = {}): Promise<SessionRow[]> {
    // LIMIT NULL is PostgreSQL's "no limit".
    const { rows } = await this.pool.query<{ seq: number; at: number; kind: string; data: string }>(
      "SELECT seq, at, kind, data FROM session_entries WHERE job_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
      [jobId, afterSeq, limit ?? null],
    );
    return rows.map((row) => ({ jobId, seq: row.seq, at: row.at, kind: row.kind, data: row.data }));
  }

  async bytes(jobId: number): Promise<number> {
    const { rows } = await this.pool.query<{ bytes: number }>("SELECT coalesce(sum(chars), 0)::bigint AS bytes FROM session_entries WHERE job_id = $1", [
      jobId,
    ]);
    return rows[0]!.bytes;
  }

  prune(before: number): Promise<number> {
    return this.removeSessions("SELECT id FROM jobs WHERE status = ANY($1::text[]) AND updated_at < $2", [[...ENDED_STATUSES], before]);
  }

  async forget({ repos = [], owners = [] }: { repos?: string[]; owners?: string[] }): Promise<number> {
    if (repos.length === 0 && owners.length === 0) return 0;
    // Compared whole and in lowercase, as the app names repositories (repositoryKey): no LIKE, whose `_` is a wildcard.
    const lower = (names: string[]) => names.map((name) => name.toLowerCase());
    return this.removeSessions("SELECT id FROM jobs WHERE lower(owner || '/' || repo) = ANY($1::text[]) OR lower(owner) = ANY($2::text[])", [
      lower(repos),
      lower(owners),
    ]);
  }

  /** Removes the sessions of the jobs `jobs` (a SELECT of ids) selects; says how many jobs had one. */
  private async removeSessions(jobs: string, params: unknown[]): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      `WITH removed AS (DELETE FROM session_entries WHERE job_id IN (${jobs}) RETURNING job_id) SELECT count(DISTINCT job_id)::int AS n FROM removed`,
      params,
    );
    return rows[0]!.n;
  }
}
