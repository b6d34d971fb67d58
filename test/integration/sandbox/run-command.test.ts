import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commandEnv } from "../../../src/sandbox/command-env.js";
import { runCommand } from "../../../src/sandbox/run-command.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-run-command-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const env = { PATH: process.env.PATH };
/** Whether a process still runs: gone, or a zombie its (reparented) parent has not reaped yet, counts as dead. */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};
/** Whether a process is gone within a few seconds: a killed process takes a moment to die on a busy machine. */
async function goneSoon(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  return !alive(pid);
}
/** The pid a command wrote to `file`, once it is there. */
const pidIn = (file: string) => Number(fs.readFileSync(path.join(dir, file), "utf8").trim());

describe("runCommand: a repository's command that misbehaves cannot hang or crash the job", () => {
  it("passes and fails by exit status, with stdout and stderr interleaved", async () => {
    expect(await runCommand("echo out; echo err >&2", { cwd: dir, env, timeoutMs: 10_000 })).toMatchObject({
      outcome: "passed",
      exitCode: 0,
      output: "out\nerr\n",
    });
    expect(await runCommand("exit 3", { cwd: dir, env, timeoutMs: 10_000 })).toMatchObject({ outcome: "failed", exitCode: 3 });
  });

  it("a command that hangs is killed at the timeout together with what it started", async () => {
    const run = await runCommand("sleep 300 & echo $! > child.pid; sleep 300", { cwd: dir, env, timeoutMs: 500 });
    expect(run.outcome).toBe("timed-out");
    expect(run.durationMs).toBeLessThan(10_000);
    expect(await goneSoon(pidIn("child.pid"))).toBe(true);
  });

  it("a command that reads stdin reads end-of-file at once", async () => {
    const run = await runCommand('read line; echo "read: [$line] status $?"; cat; echo done', { cwd: dir, env, timeoutMs: 10_000 });
    expect(run).toMatchObject({ outcome: "passed", output: "read: [] status 1\ndone\n" });
  });

  it("a command that floods its output keeps only the tail, however much it prints", async () => {
    const run = await runCommand("head -c 50000000 /dev/zero | tr '\\0' 'x'; echo; echo THE END", { cwd: dir, env, timeoutMs: 60_000, keepBytes: 64 * 1024 });
    expect(run.outcome).toBe("passed");
    expect(run.outputBytes).toBe(50_000_000 + "\nTHE END\n".length);
    expect(run.output.length).toBe(64 * 1024);
    expect(run.output.endsWith("xxx\nTHE END\n")).toBe(true);
  });

  it("a daemon left behind holding the output open does not keep the run going; it is killed", async () => {
    const run = await runCommand("(sleep 300; echo late) & echo $! > daemon.pid; echo started", { cwd: dir, env, timeoutMs: 60_000 });
    expect(run).toMatchObject({ outcome: "passed", output: "started\n" });
    expect(run.durationMs).toBeLessThan(10_000);
    expect(await goneSoon(pidIn("daemon.pid"))).toBe(true);
  });

  it("a daemon that left the group (setsid) cannot hold the run: it ends, and its pipes are closed", async () => {
    const run = await runCommand("setsid sh -c 'echo $$ > escaped.pid; sleep 300; echo late' & sleep 0.3; echo started", { cwd: dir, env, timeoutMs: 60_000 });
    expect(run).toMatchObject({ outcome: "passed", output: "started\n" });
    expect(run.durationMs).toBeLessThan(10_000);
    // It escaped the group kill, as setsid means to: the test stops it.
    process.kill(pidIn("escaped.pid"), "SIGKILL");
  });

  it("aborting (a cancelled job) kills the group and says why", async () => {
    const stop = new AbortController();
    const running = runCommand("sleep 300 & echo $! > child.pid; wait", { cwd: dir, env, timeoutMs: 60_000, signal: stop.signal });
    while (!fs.existsSync(path.join(dir, "child.pid")) || fs.readFileSync(path.join(dir, "child.pid"), "utf8").trim() === "")
      await new Promise((r) => setTimeout(r, 20));
    stop.abort();
    const run = await running;
    expect(run).toMatchObject({ outcome: "error", error: "stopped: the job was cancelled or ran out of time" });
    expect(await goneSoon(pidIn("child.pid"))).toBe(true);
  });

  it("a command that cannot start is an error run, not a throw", async () => {
    const run = await runCommand("true", { cwd: path.join(dir, "missing"), env, timeoutMs: 10_000 });
    expect(run.outcome).toBe("error");
    expect(run.error).toMatch(/^it could not start: /);
  });
});

describe("commandEnv", () => {
  it("keeps the toolchain's variables and drops every credential, by name or by value", () => {
    const env = commandEnv(
      {
        PATH: "/usr/bin",
        HOME: "/home/runner",
        JAVA_HOME: "/opt/java",
        pythonLocation: "/opt/py",
        GITHUB_REPOSITORY: "o/r",
        GITHUB_TOKEN: "ghs_x",
        GH_TOKEN: "y",
        OPENAI_API_KEY: "sk-1",
        OPENAI_BASE_URL: "http://proxy",
        MAGIS_DB: "/x.db",
        INPUT_OPENAI_API_KEY: "sk-2",
        ACTIONS_ID_TOKEN_REQUEST_URL: "https://oidc",
        ACTIONS_RUNTIME_TOKEN: "z",
        PRIVATE_KEY: "-----BEGIN",
        WEBHOOK_SECRET: "w",
        DATABASE_URL: "postgres://u:p@h/db",
        AWS_SECRET_ACCESS_KEY: "a",
        NPM_AUTH: "n",
        INNOCENT_LOOKING: "the-installation-token-value",
        GH_PAT: "ghp_x",
        PGPASSFILE: "/root/.pgpass",
        REDIS_URL: "redis://:hunter2@cache:6379",
        PATH_INFO: "/x",
      },
      ["the-installation-token-value"],
    );
    expect(env).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/runner",
      JAVA_HOME: "/opt/java",
      pythonLocation: "/opt/py",
      GITHUB_REPOSITORY: "o/r",
      PATH_INFO: "/x",
      CI: "true",
    });
  });
});
