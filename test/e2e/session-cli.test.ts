import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openPostgresStore } from "../../src/backends/postgres/postgres-store.js";
import { openDatabase } from "../../src/backends/sqlite/database.js";
import { migrateSqlite, SQLITE_MIGRATIONS } from "../../src/backends/sqlite/sqlite-migrations.js";
import { openSqliteStore } from "../../src/backends/sqlite/sqlite-store.js";
import type { NewJob } from "../../src/store/jobs.js";
import type { NewSessionRow } from "../../src/store/sessions.js";
import type { Store } from "../../src/store/store.js";
import { main } from "../../src/cli.js";
import { runInProcessGroup } from "../support/run-in-process-group.js";
import { startTestPostgres, type TestPostgres } from "../support/postgres.js";

const MAGIS = path.resolve(import.meta.dirname, "../integration/locate/run-magis.ts");
// By its path: the process runs in a temp folder, where `--import tsx` would not find the package.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

let work: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-session-cli-"));
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

let server: TestPostgres | undefined;
beforeAll(async () => {
  server = await startTestPostgres();
});
afterAll(async () => {
  await server?.stop();
});

/** The environment of a run: HOME in the work folder (the state folder is there), and `env`. */
const environment = (env: Record<string, string>) => ({ PATH: process.env.PATH, HOME: path.join(work, "home"), ...env });

/** `magis session …` in a process of its own, from the sources: what an operator runs. */
function magisSessionProcess(args: string[], env: Record<string, string> = {}) {
  return runInProcessGroup(process.execPath, ["--import", TSX, MAGIS, "session", ...args], { cwd: work, env: environment(env), timeoutMs: 120_000 });
}

/** `magis session …` through the command line's entry in this process (a process of its own takes seconds to load here), its output as one text. */
async function magisSession(args: string[], env: Record<string, string> = {}) {
  let out = "";
  const write = (text: string) => void (out += text);
  const code = await main(["session", ...args], { stdout: write, stderr: write, env: environment(env), cwd: work });
  return { code, out };
}

const job: NewJob = {
  delivery: "d-1",
  key: "octo/widgets#7",
  kind: "resolve-issue",
  installationId: 1,
  owner: "octo",
  repo: "widgets",
  number: 7,
  payload: {},
};
const entries: NewSessionRow[] = [
  { at: 1_750_000_000_000, kind: "stage", data: JSON.stringify({ name: "locate", state: "started" }) },
  { at: 1_750_000_000_500, kind: "command", data: JSON.stringify({ command: "pytest", tail: "1 passed\n<script>alert(1)</script> 世界" }) },
  { at: 1_750_000_001_000, kind: "outcome", data: JSON.stringify({ status: "succeeded", detail: "https://github.com/octo/widgets/pull/8" }) },
];
/** The lines the export of `entries` is: each entry's data parsed, one object a line. */
const exported = entries.map((entry, i) => `${JSON.stringify({ seq: i + 1, at: entry.at, kind: entry.kind, data: JSON.parse(entry.data) })}\n`).join("");

/** Records the job, a second one without a session, and the first one's session; gives their ids. */
async function fill(store: Store): Promise<{ id: number; bare: number }> {
  await store.migrate();
  const id = (await store.jobs.add(job))!.id;
  const bare = (await store.jobs.add({ ...job, delivery: "d-2" }))!.id;
  await store.sessions.append(id, entries);
  await store.jobs.succeed(id, "https://github.com/octo/widgets/pull/8");
  return { id, bare };
}

describe("magis session export", () => {
  it(
    "writes a job's session as JSON Lines from the app's SQLite file, to the standard output or a file, and says why when there is none",
    { timeout: 180_000 },
    async () => {
      // The file magis serve opens without settings: magis.db in the state folder under HOME.
      const file = path.join(work, "home", ".cache", "magis", "magis.db");
      const store = openSqliteStore(file);
      const { id, bare } = await fill(store);
      await store.close();

      expect(await magisSessionProcess(["export", String(id)])).toEqual({ code: 0, out: exported });
      const out = path.join(work, "session.jsonl");
      expect(await magisSession(["export", String(id), "--db", file, "--out", "session.jsonl"])).toEqual({
        code: 0,
        out: `magis session: wrote the 3 entries of job ${id}'s session to ${out}\n`,
      });
      expect(fs.readFileSync(out, "utf8")).toBe(exported);

      expect(await magisSession(["export", "99", "--db", file])).toEqual({
        code: 1,
        out: `magis session: ${file} holds no job 99: check the id (the number in the session page's address, /jobs/ID) and that this is the store of the app that ran it\n`,
      });
      const none = await magisSession(["export", String(bare), "--db", file]);
      expect(none).toMatchObject({ code: 1 });
      expect(none.out).toContain(
        `job ${bare} (resolve-issue of octo/widgets#7, queued) has no session in ${file}: it ran before this version recorded sessions, or its session was removed`,
      );
    },
  );

  it("says so of a SQLite file that is not there (making none) and of one no MAGIS with sessions has served", async () => {
    const missing = path.join(work, "nowhere", "magis.db");
    const absent = await magisSession(["export", "1", "--db", missing]);
    expect(absent).toEqual({
      code: 1,
      out: `magis session: there is no SQLite file at ${missing} (--db): pass --db with the file magis serve uses, or set DATABASE_URL to its PostgreSQL database\n`,
    });
    expect(fs.existsSync(path.dirname(missing))).toBe(false);

    // A file an earlier release wrote: its jobs, and no sessions table.
    const older = path.join(work, "older.db");
    const db = openDatabase(older);
    migrateSqlite(db, SQLITE_MIGRATIONS.slice(0, 2));
    db.close();
    const store = openSqliteStore(older);
    await store.jobs.add(job);
    await store.close();
    const result = await magisSession(["export", "1", "--db", older]);
    expect(result).toMatchObject({ code: 1 });
    // The engine's own words in the middle (better-sqlite3 and node:sqlite say it differently).
    expect(result.out.startsWith(`magis session: could not read the sessions in ${older}: `)).toBe(true);
    expect(result.out).toContain("no such table: session_entries");
    expect(result.out.endsWith("; a store no MAGIS with sessions has served yet has none (magis serve of this version adds them when it starts)\n")).toBe(true);
  });

  it("reads the PostgreSQL database DATABASE_URL names, and refuses what is not a job's id", async () => {
    const url = await server!.newDatabase();
    const store = await openPostgresStore(url);
    const { id } = await fill(store);
    await store.close();
    expect(await magisSession(["export", String(id)], { DATABASE_URL: url })).toEqual({ code: 0, out: exported });

    const wrong = await magisSession(["export", "7a"], { DATABASE_URL: url });
    expect(wrong).toEqual({
      code: 2,
      out: "magis session: '7a' is not a job's id: a job's id is a whole number from 1, as in its page's address (/jobs/ID); run 'magis session --help'\n",
    });
    expect(await magisSession(["show", "1"])).toMatchObject({ code: 2, out: expect.stringContaining("unknown session action 'show'") });
  });
});
