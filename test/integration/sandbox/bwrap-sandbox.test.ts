import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { processesWith } from "../../../src/sandbox/escape-probes.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { SANDBOX_UID } from "../../../src/sandbox/sandbox-layout.js";
import { DEFAULT_LIMITS, type SandboxLimits } from "../../../src/sandbox/sandbox-limits.js";
import { bubblewrapForTests } from "../../support/bubblewrap-for-tests.js";

// A hostile test_command, case by case, through the real bubblewrap: each is contained or bounded, and leaves nothing.
const SECRET = "sk-canary-of-the-sandbox-tests-0123456789";
const LIMITS: SandboxLimits = { ...DEFAULT_LIMITS, processes: 200, tmpBytes: 8 * 1024 * 1024, fileBytes: 16 * 1024 * 1024, shmBytes: 4 * 1024 * 1024 };

let host: string;
let copy: string;
let sandbox: Sandbox;
let listener: net.Server;
let port: number;
let connections = 0;

beforeAll(async () => {
  sandbox = bubblewrapForTests(LIMITS);
  // The bot's own secrets are in this process's environment, as an App server's are.
  process.env.MAGIS_SANDBOX_CANARY = SECRET;
  listener = net.createServer((socket) => {
    connections++;
    socket.end("hello\n");
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  port = (listener.address() as net.AddressInfo).port;
});
afterAll(async () => {
  delete process.env.MAGIS_SANDBOX_CANARY;
  await new Promise((resolve) => listener.close(resolve));
});

beforeEach(() => {
  // The bot's folder: its private key, its .env, its database, another job's checkout; and this job's copy.
  host = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sandbox-host-"));
  fs.writeFileSync(path.join(host, "app.private-key.pem"), `-----BEGIN RSA PRIVATE KEY-----\n${SECRET}\n-----END RSA PRIVATE KEY-----\n`);
  fs.writeFileSync(path.join(host, ".env"), `WEBHOOK_SECRET=${SECRET}\n`);
  fs.writeFileSync(path.join(host, "magis.db"), `SQLite format 3\0${SECRET}`);
  fs.mkdirSync(path.join(host, "other-checkout"));
  fs.writeFileSync(path.join(host, "other-checkout", "secret.txt"), SECRET);
  copy = path.join(host, "copy");
  fs.mkdirSync(copy);
  fs.writeFileSync(path.join(copy, "README.md"), "the repository\n");
  sandbox.prepare(copy);
});
afterEach(() => fs.rmSync(host, { recursive: true, force: true }));

const run = (command: string, extra: { timeoutMs?: number; env?: Record<string, string> } = {}) =>
  sandbox.run(command, { dir: copy, env: extra.env ?? {}, timeoutMs: extra.timeoutMs ?? 20_000 });

describe("the bubblewrap sandbox keeps a hostile command from the bot's secrets", () => {
  it("its environment is the allowlist and test_env alone", async () => {
    const result = await run("env | sort", { env: { DJANGO_SETTINGS_MODULE: "tests.settings" } });
    expect(result.outcome).toBe("passed");
    const names = result.output
      .trim()
      .split("\n")
      .map((line) => line.split("=")[0]);
    expect(names.filter((name) => name !== "PWD" && name !== "SHLVL" && name !== "_")).toEqual([
      "CI",
      "DJANGO_SETTINGS_MODULE",
      "HOME",
      "LANG",
      "PATH",
      "TMPDIR",
    ]);
    expect(result.output).not.toContain(SECRET);
  });

  it("sees its own processes alone: /proc/*/environ, the parent's and PID 1's hold no secret", async () => {
    const result = await run(
      'cat /proc/$PPID/environ; for f in /proc/[0-9]*/environ; do cat "$f"; done; cat /proc/1/cmdline; echo; ls /proc | grep -c "^[0-9]"',
    );
    expect(result.output).not.toContain(SECRET);
    // The shell, its children and bwrap as PID 1: a handful, not the machine's.
    expect(Number(result.output.trim().split("\n").at(-1))).toBeLessThan(10);
  });

  it("cannot read the private key, the .env, the database or another job's checkout", async () => {
    const paths = ["app.private-key.pem", ".env", "magis.db", "other-checkout/secret.txt"].map((name) => path.join(host, name));
    const result = await run(paths.map((file) => `cat '${file}'`).join("; ") + `; ls -a '${host}'; cat /etc/shadow; exit 0`);
    expect(result.output).not.toContain(SECRET);
    expect(result.output).toContain("No such file or directory");
  });

  it("writes its copy and its private /tmp only: home, /tmp and the bot's folders of the host stay untouched", async () => {
    const mark = `magis-sandbox-planted-${process.pid}-${Date.now()}`;
    const result = await run(
      `echo x > written.txt; echo x > ~/${mark}; echo x > /tmp/${mark}; echo x > '${host}/planted' ; echo x > /usr/${mark}; echo x > /etc/${mark}; exit 0`,
    );
    expect(fs.readFileSync(path.join(copy, "written.txt"), "utf8")).toBe("x\n");
    expect(fs.existsSync(path.join(host, "planted"))).toBe(false);
    for (const folder of ["/usr", "/etc", os.homedir(), os.tmpdir(), "/tmp"]) expect(fs.existsSync(path.join(folder, mark)), folder).toBe(false);
    expect(result.output).toMatch(/Read-only file system|No such file or directory|Permission denied/);
  });

  it("reaches no network: a listener on 127.0.0.1 and name resolution both fail", async () => {
    const probe = `
      const net = require("node:net");
      const dns = require("node:dns");
      const socket = net.connect(${port}, "127.0.0.1");
      socket.on("connect", () => console.log("connected"));
      socket.on("error", (e) => console.log("connect failed: " + e.code));
      dns.lookup("registry.npmjs.org", (e) => console.log(e ? "lookup failed: " + e.code : "resolved"));
    `;
    const result = await run(`node -e '${probe}'`);
    expect(result.output).toContain("connect failed: ECONNREFUSED");
    expect(result.output).toMatch(/lookup failed: E[A-Z]+/);
    expect(connections).toBe(0);
  });

  it("prints no secret however it re-encodes one: there is none within its reach", async () => {
    const result = await run('for f in /proc/[0-9]*/environ; do cat "$f"; done | base64; env | rev; exit 0');
    for (const form of [SECRET, Buffer.from(SECRET).toString("base64").slice(0, 24), [...SECRET].reverse().join("")]) expect(result.output).not.toContain(form);
  });
});

describe("the bubblewrap sandbox bounds a runaway command and leaves nothing behind", () => {
  it("a fork bomb stops at the process limit and dies with the sandbox at the timeout", async () => {
    const result = await run("bomb() { bomb | bomb & }; bomb; sleep 60", { timeoutMs: 3_000 });
    expect(result.outcome).toBe("timed-out");
    // Its processes all ran as the sandbox's user; none is left.
    await expect.poll(() => processesWith("bomb").length, { timeout: 10_000 }).toBe(0);
  });

  it("writes stop at the caps: its /tmp is full at the tmpfs size, one file at the file size", async () => {
    const result = await run("dd if=/dev/zero of=/tmp/fill bs=1M count=64; ls -l /tmp/fill; dd if=/dev/zero of=big bs=1M count=64; exit 0");
    expect(result.output).toContain("No space left on device");
    expect(fs.statSync(path.join(copy, "big")).size).toBeLessThanOrEqual(LIMITS.fileBytes);
  });

  it("its /dev/shm is its own, for every user, and full at its size", async () => {
    const result = await run("stat -c %a /dev/shm; dd if=/dev/zero of=/dev/shm/fill bs=1M count=16; ls /dev/shm; exit 0");
    expect(result.output.split("\n")[0]).toBe("1777");
    expect(result.output).toContain("No space left on device");
    // What it wrote there is gone with it: the next command's /dev/shm is empty.
    expect((await run("ls -A /dev/shm")).output).toBe("");
  });

  it("a daemon started with setsid dies when the command exits", async () => {
    const marker = "1234.5678";
    const result = await run(`setsid sleep ${marker} > /dev/null 2>&1 < /dev/null & sleep 0.2; exit 0`);
    expect(result.outcome).toBe("passed");
    await expect.poll(() => processesWith(marker), { timeout: 10_000 }).toEqual([]);
  });

  it("one that ignores SIGTERM is killed at the timeout, with all it started", async () => {
    const marker = "2345.6789";
    const result = await run(`trap '' TERM; sleep ${marker} & sleep ${marker}`, { timeoutMs: 1_000 });
    expect(result.outcome).toBe("timed-out");
    await expect.poll(() => processesWith(marker), { timeout: 10_000 }).toEqual([]);
  });

  it("a run stopped at the timeout or a cancel ends only once every process it started is gone", async () => {
    // The copy is put back right after a run: a process of the sandbox still alive then could race the restore. Many
    // processes make the kernel's emptying of the sandbox's PID namespace slow enough to be seen.
    const marker = "3456.7891";
    const many = `for i in $(seq 120); do sleep ${marker} > /dev/null 2>&1 & done; exec > /dev/null 2>&1; wait`;
    const timedOut = await run(many, { timeoutMs: 1_500 });
    expect(timedOut.outcome).toBe("timed-out");
    expect(processesWith(marker)).toEqual([]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 1_500);
    const cancelled = await sandbox.run(many, { dir: copy, env: {}, timeoutMs: 20_000, signal: controller.signal });
    expect(cancelled.outcome).toBe("error");
    expect(processesWith(marker)).toEqual([]);
  });

  it("100 MB of output costs only the kept tail", async () => {
    const result = await run("head -c 100000000 /dev/zero | tr '\\0' x");
    expect(result.outputBytes).toBe(100_000_000);
    expect(result.output.length).toBeLessThanOrEqual(512 * 1024);
  });

  it("runs as nobody when the bot is root, and its copy is its own", async () => {
    const result = await run("id -u; touch new-file && echo wrote");
    expect(result.output).toContain("wrote");
    if (process.getuid?.() === 0) expect(result.output.split("\n")[0]).toBe(String(SANDBOX_UID));
  });
});
