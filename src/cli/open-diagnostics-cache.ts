import { readSettings } from "../app/settings/read-settings.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import type { Store } from "../store/store.js";
import type { CliIo } from "./io.js";
import { openMemoryStore } from "./open-checkout.js";

/**
 * The store whose index cache keeps what the language servers said of a commit's untouched files, or null, after one
 * warning on stderr, when it does not open (a bad setting, an unreachable PostgreSQL, an unwritable MAGIS_DB): the
 * cache only saves a later run time, so `magis diagnose` checks without it rather than fail.
 */
export async function openDiagnosticsCache(io: CliIo): Promise<Store | null> {
  try {
    return await openMemoryStore(readSettings(io.env, { door: "cli" }));
  } catch (error) {
    const reason = redactSecrets(error instanceof Error ? error.message : String(error));
    io.stderr(
      `magis diagnose: warning: the diagnostics cache did not open, so this check runs without it and keeps nothing for a later run: ${reason}\n` +
        "  To keep it, fix DATABASE_URL (a PostgreSQL database this machine reaches) or MAGIS_DB (a SQLite file in a folder you can write), or unset both for the default.\n",
    );
    return null;
  }
}
