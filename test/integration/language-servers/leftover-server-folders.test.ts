import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sweepCheckouts } from "../../../src/app/sweep-work-folder.js";
import { serverProcesses } from "../../support/server-processes.js";

let dirs: string[] = [];
const children: ChildProcess[] = [];
const temps: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  // A server the test left running (it failed before the sweep stopped it): killed by its process group.
  for (const pid of temps.splice(0).flatMap(serverProcesses)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Not a group leader, or gone: its leader's group holds it.
    }
  }
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function scratch(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Starts a process holding a language server on `root` whose temp folder is made in `tmp`; resolves with what it printed. */
async function holdServer(root: string, tmp: string, mode: "contained" | "uncontained", env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/hold-language-server.ts", root, mode], {
    cwd: process.cwd(),
    env: { ...process.env, ...env, TMPDIR: tmp },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const said = await new Promise<{ temp?: string; why?: string }>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => resolve(JSON.parse(chunk.toString())));
    child.on("exit", (code) => reject(new Error(`the server holder exited (${code}) first: ${output}`)));
  });
  if (said.temp) temps.push(said.temp);
  return { child, ...said };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

/** The app's sweep of leftovers, once, with the system's temp folder at `tmp` and its work folder elsewhere. */
function sweep(tmp: string, workDir: string): string[] {
  const logged: string[] = [];
  const log = { info: (_: object, message: string) => logged.push(message), warn: (_: object, message: string) => logged.push(message) };
  const was = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    sweepCheckouts(workDir, log).stop();
  } finally {
    if (was === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = was;
  }
  return logged;
}

describe("the temp folders of language servers whose bot was killed", () => {
  it("are removed by the app's sweep of the temp folder; a live bot's stays, its server running", async () => {
    const root = scratch("magis-lsp-sweep-checkout-");
    fs.writeFileSync(path.join(root, "a.py"), "x = 1\n");
    const tmp = scratch("magis-lsp-sweep-tmp-");
    const killed = await holdServer(root, tmp, "contained");
    const live = await holdServer(root, tmp, "contained");
    expect(serverProcesses(killed.temp!).length).toBeGreaterThan(0);
    await kill(killed.child);
    // Its jail dies with it; its folder stays behind.
    await expect.poll(() => serverProcesses(killed.temp!), { timeout: 5_000 }).toEqual([]);
    expect(fs.existsSync(killed.temp!)).toBe(true);

    expect(sweep(tmp, scratch("magis-lsp-sweep-work-"))).toEqual(["removed 1 checkouts left behind by processes that are gone"]);
    expect(fs.existsSync(killed.temp!)).toBe(false);
    expect(fs.existsSync(live.temp!)).toBe(true);
    expect(serverProcesses(live.temp!).length).toBeGreaterThan(0);
  });

  it("run uncontained (no bubblewrap, the operator's choice), the sweep stops what still runs there and removes them", async () => {
    const root = scratch("magis-lsp-sweep-checkout-");
    fs.writeFileSync(path.join(root, "a.py"), "x = 1\n");
    const tmp = scratch("magis-lsp-sweep-tmp-");
    // With no bubblewrap on PATH, and the operator not allowing it, the server does not start at all.
    const refused = await holdServer(root, tmp, "contained", { PATH: "" });
    expect(refused.why).toMatch(/^the python language server runs only in bubblewrap, and bubblewrap is not installed/);
    const killed = await holdServer(root, tmp, "uncontained", { PATH: "" });
    await kill(killed.child);
    expect(fs.existsSync(killed.temp!)).toBe(true);

    sweep(tmp, scratch("magis-lsp-sweep-work-"));
    expect(fs.existsSync(killed.temp!)).toBe(false);
    await expect.poll(() => serverProcesses(killed.temp!), { timeout: 5_000 }).toEqual([]);
    // tsx keeps its cache there too (`tsx-0`): only the servers' folders count.
    expect(fs.readdirSync(tmp).filter((name) => name.startsWith("magis-language-server-"))).toEqual([]);
  });
});
