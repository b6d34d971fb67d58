import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { openPostgresBackend } from "../../../src/backends/postgres/postgres-backend.js";
import { freePort } from "../../support/free-port.js";
import { startProcessGroup, waitFor, type ProcessGroup } from "../../support/process-group.js";

const ROOT = path.resolve(import.meta.dirname, "../../..");

/** `npm run postgres` as a user starts it, in a process group of its own; resolves with the URL it printed. */
async function startCommand(folder: string, port: number): Promise<{ group: ProcessGroup; url: string; pid: number }> {
  const group = startProcessGroup("npm", ["run", "--silent", "postgres", "--", "--dir", folder, "--port", String(port)], { cwd: ROOT, env: process.env });
  started.push(group);
  await waitFor(group, () => /^Stop it with Ctrl-C, or: kill -TERM \d+$/m.test(group.output()), {
    withinMs: 60_000,
    what: "npm run postgres printing its URL",
  });
  const url = /^export DATABASE_URL=(\S+)$/m.exec(group.output())![1]!;
  const pid = Number(/kill -TERM (\d+)/.exec(group.output())![1]);
  return { group, url, pid };
}

/** Whether anything accepts a connection on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** The processes whose command line names `text` (postgres runs as `postgres -D <folder>/data`). */
function processesNaming(text: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(text)) found.push(Number(entry));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

const started: ProcessGroup[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const group of started.splice(0)) await group.stop(0);
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

describe("npm run postgres", () => {
  it("prints a DATABASE_URL that MAGIS migrates, stops on SIGTERM with its postgres, and starts again on the kept data", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), "magis-dev-db-"));
    folders.push(home);
    // As root PostgreSQL runs as the user postgres, who must be able to enter the temp folder; the command refuses one it cannot.
    fs.chmodSync(home, 0o755);
    const folder = path.join(home, "postgres");
    const dataDir = path.join(folder, "data");
    const port = await freePort();

    const first = await startCommand(folder, port);
    expect(first.url).toMatch(new RegExp(`^postgres://postgres:[0-9a-f]+@127\\.0\\.0\\.1:${port}/magis$`));
    const backend = await openPostgresBackend(first.url, { poolSize: 2 });
    try {
      await backend.migrate();
    } finally {
      await backend.close();
    }
    expect(processesNaming(dataDir).length).toBe(1);

    process.kill(first.pid, "SIGTERM");
    expect(await first.group.exited).toEqual({ code: 0, signal: null });
    expect(first.group.output()).toContain(`PostgreSQL stopped; its data stays in ${folder}.`);
    expect(await listening(port)).toBe(false);
    expect(processesNaming(dataDir)).toEqual([]);
    expect(fs.existsSync(path.join(dataDir, "postmaster.pid"))).toBe(false);

    const second = await startCommand(folder, port);
    expect(second.url).toBe(first.url);
    const client = new pg.Client({ connectionString: second.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ count: string }>("SELECT count(*) FROM magis_schema_migrations");
      expect(Number(rows[0]!.count)).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
    process.kill(second.pid, "SIGINT");
    expect(await second.group.exited).toEqual({ code: 0, signal: null });
    expect(await listening(port)).toBe(false);
    expect(processesNaming(dataDir)).toEqual([]);
  });

  it("refuses a port that is not one, naming the flag, before starting anything", async () => {
    const group = startProcessGroup("npm", ["run", "--silent", "postgres", "--", "--port", "54x"], { cwd: ROOT, env: process.env });
    started.push(group);
    expect((await group.exited).code).toBe(2);
    expect(group.output()).toContain("--port is '54x': give a TCP port from 1 to 65535");
  });
});
