import type pg from "pg";
import { JOB_KEY_LOCKS } from "./advisory-locks.js";

/** The graphile-worker task every MAGIS job runs as; its payload is the job record's id. */
export const TASK = "magis-job";

/** The database's clock in milliseconds: heartbeats of workers on several machines are compared on one clock. */
export const DB_NOW = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** One submission or cancellation per key at a time (until the transaction ends), so "busy" cannot change between a look and a write. */
export async function lockKey(client: pg.PoolClient, key: string): Promise<void> {
  await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [JOB_KEY_LOCKS, key]);
}

/** What graphile-worker's job key of a job record starts with; its id follows. */
export const JOB_KEY_PREFIX = "magis-job-";

/** graphile-worker's job key of a job record: cancelling a queued job removes its queue entry by it. */
export function jobKeyOf(id: number): string {
  return `${JOB_KEY_PREFIX}${id}`;
}

/**
 * Enqueues job `id` in its key's named queue, in the caller's transaction, due at `runAt` (default now): a job takes
 * its place in its issue's line by when its trigger arrived, and a handed-back or requeued job keeps its place.
 */
export async function enqueue(client: pg.PoolClient, id: number, key: string, runAt: Date | null): Promise<void> {
  await client.query(
    "SELECT graphile_worker.add_job($1, json_build_object('id', $2::bigint), queue_name := $3, run_at := COALESCE($4::timestamptz, now()), max_attempts := 1, job_key := $5)",
    [TASK, id, key, runAt, jobKeyOf(id)],
  );
}
