import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bindSystemDirs } from "./bind-system-dirs.js";
import { findProgram } from "./find-program.js";
import { hideBotPaths } from "./hide-bot-paths.js";
import { maskInherited } from "./mask-inherited-fds.js";
import { runProgram } from "./run-command.js";
import { bridgedCommand, PROXY_MOUNT, proxyVariables } from "./proxy-bridge.js";
import type { Sandbox, SandboxRun, SetupNetwork } from "./sandbox.js";
import { chownTree, HOME_DIR, SANDBOX_UID, WORKSPACE } from "./sandbox-layout.js";
import type { SandboxLimits } from "./sandbox-limits.js";
import { setupAllowList } from "./setup-allow-list.js";

/** The host's system folders a command may read: programs, libraries, their configuration. Nothing else is mounted. */
const SYSTEM_DIRS = ["/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

const PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** How a bwrap sandbox is made on this machine. */
export interface BwrapOptions {
  /** The bwrap program (default: found on PATH by name). */
  program: string;
  limits: SandboxLimits;
  /** Whether a setup may reach the network, through the bot's proxy. */
  setupNetwork: boolean;
  /** The hosts the proxy may let a setup reach (default: setupAllowList's for setupNetwork). */
  setupAllowHosts?: readonly string[];
  /** The bot's own files and folders (see listBotPaths): those the system folders would show are hidden. */
  hide?: readonly string[];
  /** Whether this process runs as root: the command then runs as SANDBOX_UID (default: as the process's uid says). */
  asRoot?: boolean;
  /** The locale the commands get (the door's LANG; default C.UTF-8). */
  lang?: string;
  /**
   * The door's PATH: its folders the sandbox shows (under /usr or /opt, say, where a runner's setup-python puts its
   * Python) come first in the commands' PATH, the system's after them.
   */
  hostPath?: string;
}

/**
 * A bubblewrap sandbox. Each command gets new PID, network, IPC and UTS namespaces (its own /proc; a network with
 * loopback alone), the host's system folders read-only less the bot's own files in them, its copy of the checkout
 * read-write at /workspace, a private /tmp of bounded size, HOME in it (empty, or `run.home` bound there) and a private
 * /dev/shm, none of the bot's
 * descriptors, an environment of PATH, HOME, LANG, TMPDIR, CI and the repository's test_env alone, and rlimits on
 * processes, CPU, file size and data. bwrap is PID 1 inside: when the command exits or is killed, everything it started
 * dies with it, daemons that called setsid too. Run as root, the command is `nobody` with no capabilities, so the
 * host's root-only files stay closed even where they are mounted. A setup given `run.network` sees the proxy's folder
 * read-only, and runs under the bridge (see proxy-bridge.ts), which listens on 127.0.0.1 of its namespace, hands each
 * connection to the proxy's socket, and is pointed at by HTTP_PROXY and the package managers' own variables: nothing
 * else of the host's network is there to reach.
 */
export function bwrapSandbox(options: BwrapOptions): Sandbox {
  const asRoot = options.asRoot ?? process.getuid?.() === 0;
  const setupAllowHosts = setupAllowList(options.setupNetwork, options.setupAllowHosts);
  const network =
    setupAllowHosts.length > 0 ? `the setup may reach ${setupAllowHosts.length} allowed hosts through the bot's proxy, the tests no network` : "no network";
  return {
    kind: "bwrap",
    label: "in bubblewrap",
    description: `in a bubblewrap sandbox (${network}; the checkout's copy and a private /tmp are all it may write; no secrets in its environment)`,
    setupNetwork: setupAllowHosts.length > 0,
    setupAllowHosts,
    prepare: (dir) => {
      if (asRoot) chownTree(dir, SANDBOX_UID);
    },
    run: (command, run) =>
      runProgram(bwrapArgv(command, run, { ...options, asRoot }), {
        cwd: run.dir,
        env: {},
        timeoutMs: run.timeoutMs,
        signal: run.signal,
        stopFirst: stopInside,
      }),
  };
}

/** The whole command line of one sandboxed command: bwrap's arguments, then who runs it and its limits, then the shell. */
export function bwrapArgv(command: string, run: SandboxRun, options: BwrapOptions & { asRoot: boolean }): [string, ...string[]] {
  const { limits } = options;
  // The commands' PATH, and the folders of it the hiding must leave visible.
  const commandPath = sandboxPath(options.hostPath, options.hide);
  const args: string[] = [
    // As root bwrap needs no user namespace; the command drops to nobody below. Otherwise the user namespace is what
    // lets an unprivileged bwrap make the others.
    // Every run has a network namespace of its own, with loopback alone; a setup's way out is the proxy's socket.
    ...(options.asRoot ? ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--unshare-net"] : ["--unshare-all"]),
    "--die-with-parent",
    "--new-session",
    ...systemView().mounts,
    // Computed for each command: a folder of the bot's (its traces, say) may have appeared since the last.
    ...hideBotPaths(options.hide ?? [], { roots: systemView().roots, needed: commandPath.split(":") }),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    // bwrap's /dev/shm is root's, 0755: shared memory of the command's own, bounded, that any of its users may use.
    "--size",
    String(limits.shmBytes),
    "--tmpfs",
    "/dev/shm",
    "--chmod",
    "1777",
    "/dev/shm",
    "--size",
    String(limits.tmpBytes),
    "--tmpfs",
    "/tmp",
    "--chmod",
    "1777",
    "/tmp",
    ...(run.home ? ["--bind", run.home, HOME_DIR] : ["--perms", "0777", "--dir", HOME_DIR]),
    ...(run.network ? proxyMounts(run.network) : []),
    "--bind",
    run.dir,
    WORKSPACE,
    "--chdir",
    WORKSPACE,
    "--clearenv",
    ...Object.entries({ ...run.env, ...ownEnv(options, commandPath), ...(run.network ? proxyVariables() : {}) }).flatMap(([name, value]) => [
      "--setenv",
      name,
      value,
    ]),
    "--",
  ];
  const user = options.asRoot
    ? ["setpriv", `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_UID}`, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    : [];
  const rlimits = [
    "prlimit",
    `--nproc=${limits.processes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--fsize=${limits.fileBytes}`,
    `--data=${limits.memoryBytes}`,
    "--core=0",
    "--",
  ];
  const shell = ["/bin/sh", "-c", command];
  return [options.program, ...args, ...user, ...rlimits, ...(run.network ? bridgedCommand(process.execPath, shell, run.env) : shell)];
}

/**
 * What a setup run is shown of its proxy: the proxy's folder (its socket, the bridge) read-only at PROXY_MOUNT, and
 * the node that runs the bridge where the system folders do not show it already.
 */
function proxyMounts(network: SetupNetwork): string[] {
  const node = process.execPath;
  const shown = SYSTEM_DIRS.some((root) => node.startsWith(`${root}/`));
  // bwrap makes a missing parent root's own, 0700: the sandbox's user must pass through it.
  const parent = ["--perms", "0755", "--dir", path.dirname(PROXY_MOUNT)];
  return [...parent, "--ro-bind", path.dirname(network.socket), PROXY_MOUNT, ...(shown ? [] : ["--ro-bind", node, node])];
}

/** The variables every command gets, whatever the repository's test_env says. */
function ownEnv(options: Pick<BwrapOptions, "lang">, commandPath: string): Record<string, string> {
  return { PATH: commandPath, HOME: HOME_DIR, TMPDIR: "/tmp", LANG: options.lang || "C.UTF-8", CI: "true" };
}

/**
 * The host PATH's folders that the sandbox mounts, in their order, then the system's own. A folder inside one of the
 * bot's own paths is left out (`npm start` puts the bot's node_modules/.bin first): the commands need nothing of the
 * bot's, and a needed folder there would keep the whole working directory from being hidden.
 */
export function sandboxPath(hostPath: string | undefined, hidden: readonly string[] = []): string {
  const shown = (dir: string) => SYSTEM_DIRS.some((root) => dir === root || dir.startsWith(`${root}/`));
  const bots = hidden.map(realOrResolved);
  const ours = (dir: string) => bots.some((bot) => realOrResolved(dir) === bot || realOrResolved(dir).startsWith(`${bot}/`));
  const folders = [...(hostPath ?? "").split(":").filter((dir) => path.isAbsolute(dir) && shown(dir) && !ours(dir)), ...PATH.split(":")];
  return [...new Set(folders)].join(":");
}

/** A path with its links resolved where it exists, else as given. */
function realOrResolved(given: string): string {
  try {
    return fs.realpathSync(given);
  } catch {
    return path.resolve(given);
  }
}

let view: { mounts: string[]; roots: string[] } | undefined;

/** The system folders' binds and the folders bound, read once. */
function systemView(): { mounts: string[]; roots: string[] } {
  view ??= bindSystemDirs(SYSTEM_DIRS);
  return view;
}

/** What the self-check found: a working sandbox, or why none works here. */
export type BwrapCheck = { ok: true; program: string } | { ok: false; why: string };

/**
 * Whether bubblewrap works here and contains what it should: it starts, the command sees its own PID namespace (bwrap
 * is PID 1), no network device but loopback, and not a file of the host's temp folder. Run once when a door starts.
 */
export function checkBwrap(options: Omit<BwrapOptions, "program"> & { program?: string; searchPath: string }): BwrapCheck {
  const find = (name: string) => findProgram(name, options.searchPath);
  const program = options.program ?? find("bwrap");
  if (!program) return { ok: false, why: "bubblewrap is not installed (apt-get install bubblewrap)" };
  for (const needed of ["prlimit", ...((options.asRoot ?? process.getuid?.() === 0) ? ["setpriv"] : [])])
    if (!find(needed)) return { ok: false, why: `${needed} is not installed (it is in util-linux)` };
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), "magis-sandbox-check-"));
  try {
    const dir = path.join(probe, "copy");
    fs.mkdirSync(dir);
    const marker = path.join(probe, "host-only");
    fs.writeFileSync(marker, "");
    const sandbox = bwrapSandbox({ ...options, program });
    sandbox.prepare(dir);
    const script = [
      `test ! -e '${marker}' || { echo "a host file is visible"; exit 1; }`,
      `test "$(cat /proc/1/comm)" = bwrap || { echo "no PID namespace of its own"; exit 1; }`,
      `test "$(grep -c : /proc/net/dev)" = 1 || { echo "a network device besides loopback"; exit 1; }`,
      "touch written || { echo 'its copy is not writable'; exit 1; }",
    ].join("\n");
    const argv = bwrapArgv(script, { dir, env: {}, timeoutMs: 10_000 }, { ...options, program, asRoot: options.asRoot ?? process.getuid?.() === 0 });
    const result = maskInherited(["ignore", "pipe", "pipe"], (stdio) =>
      spawnSync(argv[0], argv.slice(1), { encoding: "utf8", timeout: 10_000, env: {}, stdio }),
    );
    if (result.error) return { ok: false, why: `bwrap did not start: ${result.error.message}` };
    if (result.status !== 0)
      return { ok: false, why: `bwrap does not work here: ${(result.stdout + result.stderr).trim().split("\n").at(-1) || `exit ${result.status}`}` };
    return { ok: true, program };
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}

/**
 * Stops a bwrap run from inside: kills the first process of its PID namespace (bwrap's child), whose exit the kernel
 * completes only once every other process of the namespace has died, and after which bwrap itself exits. Killing bwrap
 * first would end the run while the namespace's processes were still dying (its child follows through its parent-death
 * signal), and the copy is put back right after a run: a process still alive then could race that.
 */
function stopInside(pid: number): void {
  for (const child of childrenOf(pid)) {
    try {
      process.kill(child, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

/** The processes whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}
