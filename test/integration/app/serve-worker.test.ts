import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../../../src/app/start-server.js";
import type { RunningServer } from "../../../src/server/listen-on.js";
import { sweepObjects } from "../../../src/app/sweep-work-folder.js";
import { checkoutPrefix, THIS_PROCESS } from "../../../src/git/checkout-name.js";
import { folderOf, objectCacheFrom, type ObjectCache } from "../../../src/git/object-cache.js";
import { freePort } from "../../support/free-port.js";
import { startTestPostgres, type TestPostgres } from "../../support/postgres.js";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { appPrivateKey } from "../../support/app-private-key.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";

let postgres: TestPostgres;
// A worker is ready once its model endpoint has answered; no job is run here.
let model: ScriptedModel;
let server: RunningServer | undefined;
const dirs: string[] = [];
beforeAll(async () => {
  postgres = await startTestPostgres();
  model = await startScriptedModel();
});
afterAll(async () => {
  await postgres?.stop();
  await model?.close();
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe("magis serve --role worker", () => {
  it("logs through Probot's own logger from its start: the checkout an earlier run left is removed, so are kept objects no job used for 14 days, and the worker becomes ready", async () => {
    const port = await freePort();
    const { workDir, env } = workerSettings(port, await postgres.newDatabase());
    // Removed at start-up, which the worker logs before Probot's logger would exist.
    const leftover = leftoverCheckout(workDir);
    // Kept objects of two repositories: one last used 15 days ago, one 13.
    const cache = objectCacheFrom(readSettings({}, { door: "serve" }).git, workDir)!;
    const stale = keptRepository(cache, "https://github.com/octo/gone.git", 15);
    const recent = keptRepository(cache, "https://github.com/octo/busy.git", 13);
    // No `log` option: the worker gets Probot's logger, which Probot builds asynchronously.
    server = await startServer({ ...env, PATH: process.env.PATH, LOG_LEVEL: "silent" }, { role: "worker" });
    expect(fs.existsSync(leftover)).toBe(false);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(recent)).toBe(true);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    // It says what runs the repositories' commands: bubblewrap, which works on this machine (.ci/run installs it).
    expect(await ready.text()).toMatch(/^ready\nrepository commands run in a bubblewrap sandbox \(no network;/);
  });

  it("stops before it sweeps anything or listens when a number among its settings is mistyped, and sweeps once it is corrected", async () => {
    const port = await freePort();
    const settings = workerSettings(port, await postgres.newDatabase());
    const { workDir } = settings;
    const env: NodeJS.ProcessEnv = { ...settings.env, LOG_LEVEL: "silent" };
    const leftover = leftoverCheckout(workDir);
    const stale = keptRepository(objectCacheFrom(readSettings({}, { door: "serve" }).git, workDir)!, "https://github.com/octo/gone.git", 15);
    const mistyped: Array<[string, string, string]> = [
      [
        "MAGIS_WORKER_LOST_SECONDS",
        "1",
        "MAGIS_WORKER_LOST_SECONDS is '1': set it to the seconds a worker may stay silent before it is taken for lost (a whole number, from 3 to 86400), or leave it unset for 60",
      ],
      ["MAGIS_JOBS_CONCURRENCY", "two", "MAGIS_JOBS_CONCURRENCY is 'two'"],
      [
        "MAGIS_DB_POOL_SIZE",
        "postgres://magis:hunter2@db/magis",
        "MAGIS_DB_POOL_SIZE holds 33 characters that are not such a number (not shown: they may be a secret set on the wrong line): set it to the PostgreSQL connections one process may hold",
      ],
    ];
    for (const [name, value, message] of mistyped) {
      const failed = startServer({ ...env, [name]: value }, { role: "worker" });
      await expect(failed, name).rejects.toThrow(message);
      await expect(failed).rejects.not.toThrow("hunter2");
      expect(fs.existsSync(leftover), name).toBe(true);
      expect(fs.existsSync(stale), name).toBe(true);
      await expect(fetch(`http://127.0.0.1:${port}/readyz`), name).rejects.toThrow();
    }
    server = await startServer(env, { role: "worker" });
    expect(fs.existsSync(leftover)).toBe(false);
    expect(fs.existsSync(stale)).toBe(false);
  });

  it("logs one start line naming the PostgreSQL host and database, never DATABASE_URL's user or password", async () => {
    const database = await postgres.newDatabase();
    const lines: { msg: string }[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const port = await freePort();
    server = await startServer({ ...workerSettings(port, database).env, PATH: process.env.PATH }, { role: "worker", log });
    const url = new URL(database);
    const started = lines.filter((line) => line.msg.startsWith("magis serve: ")).map((line) => line.msg);
    expect(started).toHaveLength(1);
    expect(started[0]).toMatch(
      new RegExp(
        `^magis serve: role worker; App ID 1; no webhooks \\(a worker\\); store PostgreSQL ${url.hostname}:${url.port}${url.pathname}; sandbox: repository commands run in a bubblewrap sandbox \\(.*; model endpoint ${model.url}$`,
      ),
    );
    expect(url.password).not.toBe("");
    expect(started[0]).not.toContain(url.password);
    expect(started[0]).not.toContain(`${url.username}:`);
  });

  it("warns when its PostgreSQL pool is not above its concurrency + 1, and not at the defaults", async () => {
    const database = await postgres.newDatabase();
    const warnings = async (settings: NodeJS.ProcessEnv): Promise<string[]> => {
      const lines: string[] = [];
      const log = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line).msg) });
      server = await startServer({ ...workerSettings(await freePort(), database).env, ...settings }, { role: "worker", log });
      await server.stop();
      server = undefined;
      return lines.filter((line) => line.includes("MAGIS_DB_POOL_SIZE"));
    };
    expect(await warnings({ MAGIS_DB_POOL_SIZE: "3", MAGIS_JOBS_CONCURRENCY: "2" })).toEqual([
      "MAGIS_DB_POOL_SIZE is not above MAGIS_JOBS_CONCURRENCY + 1: jobs waiting for another process's index write may wait for a connection too; raise MAGIS_DB_POOL_SIZE",
    ]);
    expect(await warnings({ MAGIS_DB_POOL_SIZE: "4", MAGIS_JOBS_CONCURRENCY: "2" })).toEqual([]);
    expect(await warnings({})).toEqual([]);
  });
});

/** A new work folder, and the settings of `magis serve --role worker` with it on `port` of 127.0.0.1 and `database`. */
function workerSettings(port: number, database: string): { workDir: string; env: NodeJS.ProcessEnv } {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-worker-"));
  dirs.push(workDir);
  return {
    workDir,
    env: {
      HOST: "127.0.0.1",
      PORT: String(port),
      NODE_ENV: "test",
      APP_ID: "1",
      PRIVATE_KEY: appPrivateKey(),
      DATABASE_URL: database,
      MAGIS_WORKDIR: workDir,
      OPENAI_BASE_URL: model.url,
    },
  };
}

/** A checkout an earlier run of this very process id left in `workDir`, which a worker removes when it starts. */
function leftoverCheckout(workDir: string): string {
  const leftover = path.join(workDir, `${checkoutPrefix({ ...THIS_PROCESS, run: "0badc0de" })}Ab12Cd`);
  fs.mkdirSync(path.join(leftover, ".git"), { recursive: true });
  return leftover;
}

/** A kept repository's folder with a manifest and a pack, last used `days` ago; returns the folder. */
function keptRepository(cache: ObjectCache, url: string, days: number): string {
  const folder = folderOf(cache, url);
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  fs.chmodSync(cache.dir, 0o700);
  const pack = `pack-${crypto.createHash("sha1").update(url).digest("hex")}`;
  fs.writeFileSync(path.join(folder, `${pack}.pack`), "PACK");
  fs.writeFileSync(path.join(folder, "head"), `${"a".repeat(40)}\n${pack}\n`);
  const then = new Date(Date.now() - days * 24 * 3600 * 1000);
  fs.utimesSync(path.join(folder, "head"), then, then);
  return folder;
}

describe("sweepObjects", () => {
  it("removes stale kept objects at once and on each round after, logs how many, and stops when told", async () => {
    const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sweep-"));
    dirs.push(workDir);
    const cache = { ...objectCacheFrom(readSettings({ MAGIS_OBJECT_CACHE_DAYS: "1" }, { door: "serve" }).git, workDir)! };
    const first = keptRepository(cache, "https://github.com/octo/one.git", 2);
    const lines: string[] = [];
    const log = { info: (_: object, message: string) => void lines.push(message), warn: (_: object, message: string) => void lines.push(`warn: ${message}`) };
    const sweeping = sweepObjects(cache, log as never, 25);
    try {
      expect(fs.existsSync(first)).toBe(false);
      expect(lines).toEqual(["removed the kept objects of 1 repository no job used for a day, or past the cache's size"]);
      const second = keptRepository(cache, "https://github.com/octo/two.git", 3);
      await expect.poll(() => fs.existsSync(second), { timeout: 2000, interval: 10 }).toBe(false);
    } finally {
      sweeping.stop();
    }
    const third = keptRepository(cache, "https://github.com/octo/three.git", 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(fs.existsSync(third)).toBe(true);
  });
});
