import type pg from "pg";
import { inTransaction } from "./in-transaction.js";
import { DB_NOW, enqueue, JOB_KEY_PREFIX, jobKeyOf } from "./postgres-queue-entries.js";

/** The reason recorded for a job whose worker stopped answering (killed, or its machine lost). */
export const LOST_REASON = "the worker running this job stopped answering (it was killed or its machine was lost)";

/**
 * Fails the running jobs of workers not heard from for their lost_after_ms (each worker's own setting), frees what
 * their graphile-worker pools locked (their issues' lines, and a job taken but not yet claimed, which requeueStranded
 * then queues again), and removes their rows. Returns the ids of the jobs it failed. Any worker may run it at any time:
 * SKIP LOCKED gives each lost worker to one sweep.
 */
export async function failJobsOfLostWorkers(db: pg.Pool): Promise<number[]> {
  return inTransaction(db, async (client) => {
    const workers = await client.query<{ id: string; pool_id: string | null }>(
      `SELECT id, pool_id FROM magis_workers WHERE seen_at < ${DB_NOW} - lost_after_ms FOR UPDATE SKIP LOCKED`,
    );
    const ids = workers.rows.map((row) => row.id);
    // A job recorded running by a worker with no row at all (it stopped between the two writes) is lost as well.
    const jobs = await client.query<{ id: string; lock_holder: string | null }>(
      `UPDATE jobs SET status = 'failed', detail = $2, updated_at = $3
       WHERE status = 'running' AND (worker = ANY($1::text[]) OR worker NOT IN (SELECT id FROM magis_workers))
       RETURNING id, lock_holder`,
      [ids, LOST_REASON, Date.now()],
    );
    const holders = new Set([...jobs.rows.map((row) => row.lock_holder), ...workers.rows.map((row) => row.pool_id)]);
    holders.delete(null);
    if (holders.size > 0) await client.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [[...holders]]);
    // Unlocked, their queue entries are dropped (they are never retried: max_attempts is 1) and their lines move on.
    for (const row of jobs.rows) await client.query("SELECT graphile_worker.remove_job($1)", [jobKeyOf(Number(row.id))]);
    if (ids.length > 0) await client.query("DELETE FROM magis_workers WHERE id = ANY($1::text[])", [ids]);
    return jobs.rows.map((row) => Number(row.id));
  });
}

/**
 * Queues again the jobs recorded queued that graphile-worker will never run: their task could not claim them (the
 * database failed each try), so graphile-worker gave them up (max_attempts 1), or their entry is gone. Each goes
 * back due when it was due before, ahead of the later jobs of its issue that have not started. Returns their ids.
 */
export async function requeueStranded(db: pg.Pool): Promise<number[]> {
  return inTransaction(db, async (client) => {
    const { rows } = await client.query<{ id: number; key: string; due: Date }>(
      `SELECT j.id, j.key, COALESCE(g.run_at, to_timestamp(j.created_at / 1000.0)) AS due
       FROM jobs j LEFT JOIN graphile_worker.jobs g ON g.key = $1 || j.id
       WHERE j.status = 'queued' AND (g.id IS NULL OR (g.locked_at IS NULL AND g.attempts >= g.max_attempts))
       FOR UPDATE OF j SKIP LOCKED`,
      [JOB_KEY_PREFIX],
    );
    for (const row of rows) {
      await client.query("SELECT graphile_worker.remove_job($1)", [jobKeyOf(row.id)]);
      await enqueue(client, row.id, row.key, row.due);
    }
    return rows.map((row) => row.id);
  });
}
