import os from "node:os";
import { describe, expect, it } from "vitest";
import { listBotPaths } from "../../../src/app/list-bot-paths.js";
import { readSettings } from "../../../src/app/settings/read-settings.js";

const listed = (env: NodeJS.ProcessEnv, door: { cwd: string; envFile?: string }) =>
  Object.fromEntries(listBotPaths(readSettings(env, { door: "serve" }), door).map((bot) => [bot.what.replace("the bot's ", ""), bot.path]));

describe("listBotPaths", () => {
  it("names the key, .env, database, working directory, traces, spool, work folder and kept environments where the settings put them", () => {
    const env = {
      PRIVATE_KEY_PATH: "/etc/magis/private-key.pem",
      MAGIS_DB: "state/magis.db",
      MAGIS_TRACE_DIR: "/var/log/magis",
      MAGIS_SPOOL_DIR: "/opt/magis/spool",
      MAGIS_WORKDIR: "/srv/magis",
      MAGIS_ENV_DIR: "/var/lib/magis/environments",
    };
    expect(listed(env, { cwd: "/opt/magis", envFile: "/etc/magis/magis.env" })).toEqual({
      "private key": "/etc/magis/private-key.pem",
      "private key's folder": "/etc/magis",
      ".env file": "/etc/magis/magis.env",
      database: "/opt/magis/state/magis.db",
      "database's write-ahead log": "/opt/magis/state/magis.db-wal",
      "database's shared-memory file": "/opt/magis/state/magis.db-shm",
      "database's folder": "/opt/magis/state",
      "working directory": "/opt/magis",
      "trace folder": "/var/log/magis",
      "spool folder": "/opt/magis/spool",
      "work folder": "/srv/magis",
      "kept environments' folder": "/var/lib/magis/environments",
    });
  });

  it("without them: .env in the working directory, the database and spool in the home's cache folder, checkouts in the temp folder, no key", () => {
    expect(listed({ HOME: "/home/magis" }, { cwd: "/opt/magis" })).toEqual({
      ".env file": "/opt/magis/.env",
      database: "/home/magis/.cache/magis/magis.db",
      "database's write-ahead log": "/home/magis/.cache/magis/magis.db-wal",
      "database's shared-memory file": "/home/magis/.cache/magis/magis.db-shm",
      "database's folder": "/home/magis/.cache/magis",
      "working directory": "/opt/magis",
      "spool folder": "/home/magis/.cache/magis/spool",
      "work folder": os.tmpdir(),
      "kept environments' folder": "/home/magis/.cache/magis/environments",
    });
    // No home either: no default database nor spool to hide.
    expect(Object.keys(listed({}, { cwd: "/opt/magis" }))).toEqual([".env file", "working directory", "work folder"]);
  });
});
