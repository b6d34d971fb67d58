import fs from "node:fs";
import path from "node:path";
import { serveDatabaseFile } from "../app/settings/find-state-paths.js";
import { readSettings } from "../app/settings/read-settings.js";
import type { Settings } from "../app/settings/settings-table.js";
import { openBackend } from "../backends/open-backend.js";
import { withEnvFile } from "../lib/read-env-file.js";
import { redactSecrets } from "../lib/redact-secrets.js";
import { UsageError } from "../lib/usage-error.js";
import type { SessionRow } from "../store/sessions.js";
import type { Store } from "../store/store.js";
import { parseFlags, type CliIo, type Command } from "./io.js";

const usage = `Usage: magis session export ID [--db FILE] [--out FILE] [--env-file FILE]

Writes the session of the app's job ID (the number in its session page's address, /jobs/ID) as JSON Lines: one
entry a line, in the order the job wrote them, each {"seq", "at" (milliseconds since the epoch), "kind", "data"}.
The store is the one magis serve uses: PostgreSQL when DATABASE_URL is set, else the SQLite file MAGIS_DB (default
magis.db in ~/.cache/magis/), read from the environment and FILE (default .env in the working folder). Nothing in
the store is changed. A session is kept MAGIS_SESSION_DAYS (default 30) after its job ended.

Options:
  --db FILE     read the SQLite file FILE (wins over DATABASE_URL and MAGIS_DB)
  --out FILE    write the lines to FILE instead of the standard output`;

/** `magis session export`: a job's session from the app's store, as JSON Lines. */
export const sessionCommand: Command = {
  name: "session",
  usage,
  run: async (args, io) => {
    const [action, id, ...rest] = args;
    if (action !== "export")
      throw new UsageError(action ? `unknown session action '${action}': the one there is is export` : "say what to do: `magis session export ID`");
    if (id === undefined || id.startsWith("-"))
      throw new UsageError("say which job: `magis session export ID`, ID the number in its page's address (/jobs/ID)");
    const jobId = /^[1-9][0-9]{0,15}$/.test(id) ? Number(id) : NaN;
    if (!Number.isSafeInteger(jobId))
      throw new UsageError(`'${id}' is not a job's id: a job's id is a whole number from 1, as in its page's address (/jobs/ID)`);
    const { values } = parseFlags(rest, { db: { type: "string" }, out: { type: "string" }, "env-file": { type: "string" } });
    const envFile = path.resolve(io.cwd, values["env-file"] ?? ".env");
    const { env } = withEnvFile(io.env, envFile, { required: values["env-file"] !== undefined });
    const settings = readSettings(env, { door: "cli" });
    const store = await openStore(settings, values.db === undefined ? undefined : path.resolve(io.cwd, values.db), io);
    if (!store) return 1;
    try {
      const rows = await readSession(store, jobId, io, settings);
      if (!rows) return 1;
      const lines = rows.map(exportLine).join("");
      if (values.out === undefined) io.stdout(lines);
      else {
        const out = path.resolve(io.cwd, values.out);
        fs.writeFileSync(out, lines);
        io.stderr(`magis session: wrote the ${rows.length === 1 ? "1 entry" : `${rows.length} entries`} of job ${jobId}'s session to ${out}\n`);
      }
      return 0;
    } finally {
      await store.close();
    }
  },
};

/** One entry as a line of the export: its data parsed, so that each line is one JSON object. */
function exportLine(row: SessionRow): string {
  return `${JSON.stringify({ seq: row.seq, at: row.at, kind: row.kind, data: JSON.parse(row.data) as unknown })}\n`;
}

/**
 * The store to read: the SQLite file `--db` names, else the one magis serve opens (DATABASE_URL, MAGIS_DB, the state
 * folder). A SQLite file that does not exist is said so (and not made, as opening it would); null then.
 */
async function openStore(settings: Settings, dbFile: string | undefined, io: CliIo): Promise<Store | null> {
  if (dbFile === undefined && settings.store.databaseUrl) return (await openBackend(settings.store)).store;
  const file = dbFile ?? path.resolve(io.cwd, serveDatabaseFile(settings.store, io.cwd).file);
  if (!fs.existsSync(file)) {
    const named = dbFile === undefined ? "the app's store (MAGIS_DB, else magis.db in the bot's state folder)" : "--db";
    io.stderr(
      `magis session: there is no SQLite file at ${file} (${named}): pass --db with the file magis serve uses, or set DATABASE_URL to its PostgreSQL database\n`,
    );
    return null;
  }
  return (await openBackend({ ...settings.store, databaseUrl: undefined }, { sqliteFile: file, answersWebhooks: false })).store;
}

/** The entries of job `jobId`'s session, or null after saying why there are none (no such job, no session kept, none in this store). */
async function readSession(store: Store, jobId: number, io: CliIo, settings: Settings): Promise<SessionRow[] | null> {
  const fail = (why: string) => {
    io.stderr(`magis session: ${why}\n`);
    return null;
  };
  let job;
  try {
    job = await store.jobs.get(jobId);
  } catch (error) {
    return fail(`could not read the job records in ${store.where}: ${redactSecrets(String(error), [settings.store.databaseUrl])}; is it the app's store?`);
  }
  if (!job)
    return fail(
      `${store.where} holds no job ${jobId}: check the id (the number in the session page's address, /jobs/ID) and that this is the store of the app that ran it`,
    );
  let rows: SessionRow[];
  try {
    rows = await store.sessions.read(jobId);
  } catch (error) {
    return fail(
      `could not read the sessions in ${store.where}: ${redactSecrets(String(error), [settings.store.databaseUrl])}; a store no MAGIS with sessions has served yet has none (magis serve of this version adds them when it starts)`,
    );
  }
  if (rows.length === 0) {
    const repo = `${job.owner}/${job.repo}#${job.number}`;
    return fail(
      `job ${jobId} (${job.kind} of ${repo}, ${job.status}) has no session in ${store.where}: it ran before this version recorded sessions, or its session was removed (MAGIS_SESSION_DAYS after the job ended, or when the app was uninstalled from the repository)`,
    );
  }
  return rows;
}
