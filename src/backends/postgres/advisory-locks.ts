/**
 * The PostgreSQL advisory locks MAGIS takes, as the (namespace, lock) pairs of `pg_advisory_xact_lock(int, int)`, all
 * in one place so that no two uses share a lock by accident. The namespace is "MAGI" in ASCII, which keeps them apart
 * from the job queue's and any other application's locks on a shared server.
 */
const NAMESPACE = 0x4d414749;

export const ADVISORY_LOCKS = {
  /** Held while one process applies (or checks) the schema migrations: processes starting at once apply each once. */
  migrations: [NAMESPACE, 1],
  /** Held by every index-cache write that touches more than one row: see postgres-index-cache.ts. */
  indexCache: [NAMESPACE, 2],
} as const satisfies Record<string, readonly [number, number]>;

/**
 * The namespace of the per-issue locks the job queue takes while it submits or cancels (the lock within it is
 * `hashtext(key)`): "MAGK", apart from the fixed locks above, so a key's hash can never take one of theirs.
 */
export const JOB_KEY_LOCKS = 0x4d41474b;

/**
 * The namespace of the per-job locks a session append takes while it numbers its entries (the lock within it is the
 * job's id): "MAGS", apart from the others.
 */
export const SESSION_LOCKS = 0x4d414753;
