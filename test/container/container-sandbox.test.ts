import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, type SandboxLimits } from "../../src/sandbox/sandbox-limits.js";
import { chooseSandbox } from "../../src/sandbox/choose-sandbox.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { containerSandbox } from "../../src/sandbox/container-sandbox.js";

// The hostile commands of the bubblewrap suite, through the container backend: `npm run test:container`, where
// Podman or Docker is present. MAGIS_SANDBOX_ENGINE gives the engine's command line this host needs (default
// podman). The image is made here from Debian's static busybox (busybox-static): no registry is needed.
const ENGINE = (process.env.MAGIS_SANDBOX_ENGINE ?? "podman").split(/\s+/) as [string, ...string[]];
const IMAGE = "localhost/magis-sandbox-test:busybox";
const SECRET = "sk-canary-of-the-container-tests-0123456789";
const LIMITS: SandboxLimits = { ...DEFAULT_LIMITS, processes: 200, tmpBytes: 8 * 1024 * 1024, fileBytes: 16 * 1024 * 1024 };
const engine = (...args: string[]) => execFileSync(ENGINE[0], [...ENGINE.slice(1), ...args], { encoding: "utf8" });

let sandbox: Sandbox;
let host: string;
let copy: string;

beforeAll(() => {
  if (!fs.existsSync("/bin/busybox")) throw new Error("these tests need Debian's busybox-static (apt-get install busybox-static) to make their image");
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "magis-container-image-"));
  try {
    fs.mkdirSync(path.join(root, "bin"), { recursive: true });
    fs.mkdirSync(path.join(root, "etc"));
    fs.copyFileSync("/bin/busybox", path.join(root, "bin", "busybox"));
    fs.chmodSync(path.join(root, "bin", "busybox"), 0o755);
    for (const applet of [
      "sh",
      "env",
      "cat",
      "ls",
      "id",
      "echo",
      "sleep",
      "touch",
      "dd",
      "head",
      "tr",
      "grep",
      "base64",
      "rev",
      "setsid",
      "wget",
      "nc",
      "true",
      "stat",
      "wc",
    ])
      fs.symlinkSync("busybox", path.join(root, "bin", applet));
    fs.writeFileSync(path.join(root, "etc", "passwd"), "root:x:0:0:root:/:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n");
    const tar = path.join(root, "..", `${path.basename(root)}.tar`);
    execFileSync("tar", ["-C", root, "-cf", tar, "."]);
    engine("import", tar, IMAGE);
    fs.rmSync(tar);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  const chosen = chooseSandbox({
    mode: "container",
    setupNetwork: false,
    env: { PATH: process.env.PATH },
    secrets: [],
    botPaths: [],
    container: { image: IMAGE, engine: ENGINE.join(" ") },
  });
  expect(chosen.sandbox?.kind).toBe("container");
  sandbox = containerSandbox({ engine: ENGINE, image: IMAGE, limits: LIMITS, setupNetwork: false });
  process.env.MAGIS_SANDBOX_CANARY = SECRET;
}, 120_000);
afterAll(() => {
  delete process.env.MAGIS_SANDBOX_CANARY;
  spawnSync(ENGINE[0], [...ENGINE.slice(1), "rmi", "-f", IMAGE], { stdio: "ignore" });
});

beforeEach(() => {
  host = fs.mkdtempSync(path.join(os.tmpdir(), "magis-container-host-"));
  fs.writeFileSync(path.join(host, "app.private-key.pem"), SECRET);
  copy = path.join(host, "copy");
  fs.mkdirSync(copy);
  fs.writeFileSync(path.join(copy, "README.md"), "the repository\n");
  sandbox.prepare(copy);
});
afterEach(() => fs.rmSync(host, { recursive: true, force: true }));

const run = (command: string, extra: { timeoutMs?: number } = {}) =>
  sandbox.run(command, { dir: copy, env: { APP_ENV: "test" }, timeoutMs: extra.timeoutMs ?? 60_000 });
const containersLeft = () =>
  engine("ps", "-a", "--format", "{{.Names}}")
    .split("\n")
    .filter((name) => name.startsWith("magis-sandbox-"));

describe("the container sandbox", () => {
  it("holds the allowlist and test_env alone, sees none of the host's files, writes its copy only", async () => {
    const result = await run(`env; cat '${path.join(host, "app.private-key.pem")}'; echo x > written.txt; echo x > '${host}/planted'; exit 0`);
    const names = result.output
      .trim()
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => line.split("=")[0])
      .filter((name) => !["PWD", "SHLVL", "HOSTNAME", "container", "TERM"].includes(name!))
      .sort();
    expect(names).toEqual(["APP_ENV", "CI", "HOME", "LANG", "PATH", "TMPDIR"]);
    expect(result.output).not.toContain(SECRET);
    expect(fs.readFileSync(path.join(copy, "written.txt"), "utf8")).toBe("x\n");
    expect(fs.existsSync(path.join(host, "planted"))).toBe(false);
  });

  it("reaches no network", async () => {
    const result = await run("wget -q -T 3 -O- http://10.0.2.2:1/ || echo wget failed; grep -c : /proc/net/dev");
    expect(result.output).toContain("wget failed");
    // Loopback alone: one device in /proc/net/dev.
    expect(result.output.trim().split("\n").at(-1)).toBe("1");
  });

  it("stops writes at the caps", async () => {
    const result = await run("dd if=/dev/zero of=/tmp/fill bs=1M count=64; dd if=/dev/zero of=big bs=1M count=64; exit 0");
    expect(result.output).toContain("No space left on device");
    expect(fs.statSync(path.join(copy, "big")).size).toBeLessThanOrEqual(LIMITS.fileBytes);
  });

  it("kills one that ignores SIGTERM at the timeout and removes its container, daemons and all", async () => {
    const result = await run("trap '' TERM; setsid sleep 1000 & sleep 1000", { timeoutMs: 3_000 });
    expect(result.outcome).toBe("timed-out");
    expect(containersLeft()).toEqual([]);
  });

  it("keeps only the tail of 100 MB of output", async () => {
    const result = await run("head -c 100000000 /dev/zero | tr '\\0' x");
    expect(result.outputBytes).toBe(100_000_000);
    expect(result.output.length).toBeLessThanOrEqual(512 * 1024);
    expect(containersLeft()).toEqual([]);
  });
});
