import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/backends/sqlite/database.js";
import { SqliteBackend } from "../../src/backends/sqlite/sqlite-backend.js";
import { checkoutPrefix, THIS_PROCESS } from "../../src/git/checkout-name.js";
import { createBareRepository, startGitServer, type GitServer } from "../support/git-server.js";
import { startApp, type RunningApp } from "./start-app.js";

const TOKEN = "ghs_leftoverCheckoutToken0123456789";
let root: string;
let git: GitServer;
let app: RunningApp | undefined;
const children: ChildProcess[] = [];

beforeEach(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-leftovers-"));
  createBareRepository(root, "octo/demo", { "README.md": "Hello\n" });
  git = await startGitServer(root, { token: TOKEN });
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await app?.close();
  app = undefined;
  await git.close();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Starts a process that clones into `workDir` with the real withShallowClone and holds the checkout; resolves with it and its folder. */
async function holdCheckout(workDir: string): Promise<{ child: ChildProcess; dir: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/hold-checkout.ts", `${git.url}/octo/demo.git`, TOKEN, workDir], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stderr!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const dir = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => resolve(chunk.toString().trim()));
    child.on("exit", (code) => reject(new Error(`the checkout holder exited (${code}) before cloning: ${output}`)));
  });
  return { child, dir };
}

function folder(workDir: string, name: string, ageMs = 0): string {
  const dir = path.join(workDir, name);
  fs.mkdirSync(path.join(dir, ".git"), { recursive: true });
  const at = (Date.now() - ageMs) / 1000;
  fs.utimesSync(dir, at, at);
  return dir;
}

describe("checkouts left behind by processes that are gone", () => {
  it("are removed when the app starts; those of live processes, of other machines and recent ones of earlier versions stay", async () => {
    const workDir = path.join(root, "work");
    const killed = await holdCheckout(workDir);
    const live = await holdCheckout(workDir);
    killed.child.kill("SIGKILL");
    await new Promise((resolve) => killed.child.once("exit", resolve));
    const day = 24 * 60 * 60 * 1000;
    // An earlier run of the app with this very pid (a restarted container), and one on another machine sharing the folder.
    const earlierRun = folder(workDir, `${checkoutPrefix({ ...THIS_PROCESS, run: "0badc0de" })}Ab12Cd`);
    const otherMachine = folder(workDir, `${checkoutPrefix({ pid: 999_999_999, host: "00000000", run: "12345678" })}Ef34Gh`);
    // Folders of a MAGIS version that did not name their process: only an old one is taken as left behind.
    const oldUnnamed = folder(workDir, "magis-clone-Xy56Zw", 2 * day);
    const recentUnnamed = folder(workDir, "magis-clone-Qr78St", 60_000);
    const unrelated = folder(workDir, "someone-elses-folder", 2 * day);
    expect(fs.existsSync(killed.dir)).toBe(true);

    app = await startApp("secret", {
      env: { MAGIS_TRACE_DIR: "", MAGIS_WORKDIR: workDir },
      seams: { backend: new SqliteBackend(openDatabase(path.join(root, "magis.db"))) },
    });

    expect(fs.existsSync(killed.dir)).toBe(false);
    expect(fs.existsSync(earlierRun)).toBe(false);
    expect(fs.existsSync(oldUnnamed)).toBe(false);
    for (const kept of [live.dir, otherMachine, recentUnnamed, unrelated]) expect(fs.existsSync(kept), kept).toBe(true);
    expect(app.logs.some((line) => line.includes("removed 3 checkouts left behind by processes that are gone"))).toBe(true);
  });

  it("are found by a running app within its sweep, and what their test runs left running is stopped first", async () => {
    const workDir = path.join(root, "work");
    app = await startApp("secret", {
      env: { MAGIS_TRACE_DIR: "", MAGIS_WORKDIR: workDir },
      seams: { backend: new SqliteBackend(openDatabase(path.join(root, "magis.db"))), checkoutSweepMs: 200 },
    });
    // A worker killed mid-job after its test run started a daemon in the test copy (its own session, as setsid makes).
    const killed = await holdCheckout(workDir);
    const tests = `${killed.dir}.tests`;
    fs.mkdirSync(tests);
    // Not detached: setsid then runs sleep in its own process, in a session of its own, without forking.
    const daemon = spawn("setsid", ["sleep", "1000"], { cwd: tests, stdio: "ignore" });
    children.push(daemon);
    const exited = new Promise<string>((resolve) => daemon.once("exit", (_code, signal) => resolve(String(signal))));
    await new Promise((resolve) => daemon.once("spawn", resolve));
    killed.child.kill("SIGKILL");
    await new Promise((resolve) => killed.child.once("exit", resolve));

    const deadline = Date.now() + 10_000;
    while ((fs.existsSync(killed.dir) || fs.existsSync(tests)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fs.existsSync(killed.dir)).toBe(false);
    expect(fs.existsSync(tests)).toBe(false);
    const stopped = await Promise.race([exited, new Promise<string>((resolve) => setTimeout(() => resolve("still running"), 5_000))]);
    expect(stopped).toBe("SIGKILL");
  });
});
