import { describe, expect, it } from "vitest";
import { bwrapArgv, sandboxPath } from "../../../src/sandbox/bwrap-sandbox.js";
import { SANDBOX_UID } from "../../../src/sandbox/sandbox-layout.js";
import { DEFAULT_LIMITS } from "../../../src/sandbox/sandbox-limits.js";

const run = { dir: "/work/job-1.tests/repo", env: { DJANGO_SETTINGS_MODULE: "tests.settings", PATH: "/evil" }, timeoutMs: 1000 };
const options = { program: "/usr/bin/bwrap", limits: DEFAULT_LIMITS, setupNetwork: false };
const after = (argv: string[], flag: string) => argv.flatMap((arg, i) => (arg === flag ? [argv[i + 1]!] : []));
const envOf = (argv: string[]) => Object.fromEntries(argv.flatMap((arg, i) => (arg === "--setenv" ? [[argv[i + 1]!, argv[i + 2]!]] : [])));

describe("bwrapArgv", () => {
  it("as root: no user namespace, its own PID and network namespaces, then nobody without capabilities, then the limits", () => {
    const argv = bwrapArgv("npm test", run, { ...options, asRoot: true });
    expect(argv.slice(0, 6)).toEqual(["/usr/bin/bwrap", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--unshare-net"]);
    expect(argv).toContain("--die-with-parent");
    const shell = argv.indexOf("--");
    expect(argv.slice(shell + 1, shell + 9)).toEqual([
      "setpriv",
      `--reuid=${SANDBOX_UID}`,
      `--regid=${SANDBOX_UID}`,
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--no-new-privs",
      "prlimit",
    ]);
    expect(argv.slice(-3)).toEqual(["/bin/sh", "-c", "npm test"]);
  });

  it("unprivileged: a user namespace makes the others; a setup given the network never shares the host's", () => {
    const setup = { ...run, network: { socket: "/tmp/magis-proxy-x/proxy.sock" } };
    expect(bwrapArgv("true", run, { ...options, asRoot: false })[1]).toBe("--unshare-all");
    expect(bwrapArgv("true", setup, { ...options, asRoot: false })[1]).toBe("--unshare-all");
    expect(bwrapArgv("true", setup, { ...options, asRoot: false })).not.toContain("--share-net");
    expect(bwrapArgv("true", setup, { ...options, asRoot: true })).toContain("--unshare-net");
  });

  it("a setup given the network sees the proxy's folder read-only, runs under the bridge, and gets the proxy's variables", () => {
    const argv = bwrapArgv("npm ci", { ...run, network: { socket: "/tmp/magis-proxy-x/proxy.sock" } }, { ...options, asRoot: true });
    const bind = argv.indexOf("--ro-bind", argv.indexOf("/tmp"));
    expect(argv.slice(bind, bind + 3)).toEqual(["--ro-bind", "/tmp/magis-proxy-x", "/run/magis-proxy"]);
    const limits = argv.indexOf("--core=0");
    expect(argv.slice(limits + 2)).toEqual([
      process.execPath,
      "/run/magis-proxy/bridge.cjs",
      "3128",
      "/run/magis-proxy/proxy.sock",
      "--",
      "/bin/sh",
      "-c",
      "npm ci",
    ]);
    expect(envOf(argv)).toMatchObject({
      HTTPS_PROXY: "http://127.0.0.1:3128",
      http_proxy: "http://127.0.0.1:3128",
      npm_config_https_proxy: "http://127.0.0.1:3128",
      NO_PROXY: "",
    });
    expect(envOf(bwrapArgv("npm test", run, { ...options, asRoot: true }))).not.toHaveProperty("HTTPS_PROXY");
    expect(bwrapArgv("npm test", run, { ...options, asRoot: true })).not.toContain("/run/magis-proxy");
  });

  it("binds a run's home read-write at HOME, in place of the empty one", () => {
    const argv = bwrapArgv("true", { ...run, home: "/work/env/home" }, { ...options, asRoot: true });
    expect(argv.slice(argv.indexOf("/work/env/home") - 1, argv.indexOf("/work/env/home") + 2)).toEqual(["--bind", "/work/env/home", "/tmp/home"]);
    expect(argv).not.toContain("--dir");
    expect(envOf(argv).HOME).toBe("/tmp/home");
  });

  it("mounts the copy at /workspace read-write, a bounded /tmp and /dev/shm; the environment is the allowlist, which test_env cannot override", () => {
    const argv = bwrapArgv("true", run, { ...options, asRoot: true, hostPath: "/opt/hostedtoolcache/Python/3.12/x64/bin:/root/.pyenv/shims:/usr/bin" });
    expect(after(argv, "--bind")).toEqual([run.dir]);
    expect(argv.slice(argv.indexOf("--dir") - 2, argv.indexOf("--dir") + 2)).toEqual(["--perms", "0777", "--dir", "/tmp/home"]);
    expect(argv[argv.indexOf("--bind") + 2]).toBe("/workspace");
    expect(after(argv, "--size")).toEqual([String(DEFAULT_LIMITS.shmBytes), String(DEFAULT_LIMITS.tmpBytes)]);
    expect(after(argv, "--tmpfs")).toEqual(["/dev/shm", "/tmp"]);
    expect(argv.slice(argv.indexOf("/dev/shm") + 1, argv.indexOf("/dev/shm") + 4)).toEqual(["--chmod", "1777", "/dev/shm"]);
    expect(envOf(argv)).toEqual({
      DJANGO_SETTINGS_MODULE: "tests.settings",
      PATH: "/opt/hostedtoolcache/Python/3.12/x64/bin:/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/sbin:/bin",
      HOME: "/tmp/home",
      TMPDIR: "/tmp",
      LANG: "C.UTF-8",
      CI: "true",
    });
  });
});

describe("sandboxPath", () => {
  it("keeps the host's folders the sandbox shows, in order, and drops the rest", () => {
    expect(sandboxPath("/root/.local/bin:/usr/local/go/bin:relative:/home/me/bin")).toBe(
      "/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    );
    expect(sandboxPath(undefined)).toBe("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  });

  it("leaves out the bot's own folders (npm start puts its node_modules/.bin first), so its working directory stays hidden whole", () => {
    expect(sandboxPath("/opt/magis/node_modules/.bin:/opt/magis-tools/bin:/usr/local/go/bin", ["/opt/magis", "/etc/magis/key.pem"])).toBe(
      "/opt/magis-tools/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    );
  });
});
