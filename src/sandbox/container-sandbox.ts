import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import path from "node:path";
import { runProgram } from "./run-command.js";
import type { Sandbox, SandboxRun } from "./sandbox.js";
import { chownTree, HOME_DIR, SANDBOX_UID, WORKSPACE } from "./sandbox-layout.js";
import type { SandboxLimits } from "./sandbox-limits.js";

/** How a container sandbox is made: the engine's command line, the image, the limits. */
export interface ContainerOptions {
  /** The engine's program and the arguments this host needs before `run` (e.g. `podman --cgroup-manager=cgroupfs`). */
  engine: readonly [string, ...string[]];
  /** The image the commands run in: it holds the repository's toolchain (MAGIS_SANDBOX_IMAGE). */
  image: string;
  limits: SandboxLimits;
  /** The operator's MAGIS_SANDBOX_SETUP_NETWORK: here only for the description to say it does nothing. */
  setupNetwork: boolean;
  /** Whether this process runs as root: the command then runs as SANDBOX_UID (default: as the process's uid says). */
  asRoot?: boolean;
  lang?: string;
}

/**
 * A container sandbox (Podman or Docker): each command in a new container of the operator's image, removed when it
 * ends, with no network at all (`--network=none`: an arbitrary image has no program to bridge a setup to the bot's
 * proxy, and the engine's default network would be the host's way out, so a setup gets none either), its copy of the
 * checkout at /workspace, `run.home` (made and owned by the caller) at HOME when given, a private /tmp of bounded size, the same allowlisted environment as bubblewrap, no capabilities, no new privileges,
 * and rlimits. The container is named, and removed by name once the command ends, at the timeout or a cancel too:
 * killing the engine's client alone would leave it running.
 */
export function containerSandbox(options: ContainerOptions): Sandbox {
  const asRoot = options.asRoot ?? process.getuid?.() === 0;
  const engineName = path.basename(options.engine[0]);
  const network = options.setupNetwork
    ? "no network, the setup's neither: this backend has no way to the bot's proxy, so MAGIS_SANDBOX_SETUP_NETWORK does nothing here"
    : "no network";
  return {
    kind: "container",
    label: `in ${engineName}`,
    description: `in a ${engineName} container of ${options.image} (${network}; the checkout's copy and a private /tmp are all it may keep; no secrets in its environment)`,
    setupNetwork: false,
    setupAllowHosts: [],
    prepare: (dir) => {
      if (asRoot) chownTree(dir, SANDBOX_UID);
    },
    run: async (command, run) => {
      const name = `magis-sandbox-${crypto.randomBytes(6).toString("hex")}`;
      try {
        return await runProgram(containerArgv(command, run, { ...options, asRoot, name }), {
          cwd: run.dir,
          env: {},
          timeoutMs: run.timeoutMs,
          signal: run.signal,
        });
      } finally {
        // Gone already (--rm) when the command ended by itself; killed and removed here when it was stopped.
        const [program, ...global] = options.engine;
        spawnSync(program, [...global, "rm", "-f", "--time", "0", name], { stdio: "ignore", timeout: 30_000 });
      }
    },
  };
}

/** The engine's whole command line for one command. */
export function containerArgv(command: string, run: SandboxRun, options: ContainerOptions & { asRoot: boolean; name: string }): [string, ...string[]] {
  const { limits } = options;
  // PATH is the image's own (its ENV), where its toolchain is.
  const env = { ...run.env, HOME: run.home ? HOME_DIR : "/tmp", TMPDIR: "/tmp", LANG: options.lang || "C.UTF-8", CI: "true" };
  return [
    ...options.engine,
    "run",
    "--rm",
    "--name",
    options.name,
    "--network=none",
    ...(options.asRoot ? [`--user=${SANDBOX_UID}:${SANDBOX_UID}`] : []),
    "--cap-drop=ALL",
    "--security-opt=no-new-privileges",
    `--tmpfs=/tmp:rw,exec,size=${limits.tmpBytes},mode=1777`,
    `--volume=${run.dir}:${WORKSPACE}`,
    ...(run.home ? [`--volume=${run.home}:${HOME_DIR}`] : []),
    `--workdir=${WORKSPACE}`,
    `--ulimit=nproc=${limits.processes}:${limits.processes}`,
    `--ulimit=cpu=${limits.cpuSeconds}:${limits.cpuSeconds}`,
    `--ulimit=fsize=${limits.fileBytes}:${limits.fileBytes}`,
    "--ulimit=nofile=1024:1024",
    ...Object.entries(env).flatMap(([key, value]) => ["--env", `${key}=${value}`]),
    options.image,
    "/bin/sh",
    "-c",
    command,
  ];
}

/** What the container self-check found. */
export type ContainerCheck = { ok: true } | { ok: false; why: string };

/** Whether the engine runs the image here: one `true` in a container made as every command's is. */
export function checkContainer(options: Omit<ContainerOptions, "limits"> & { limits: SandboxLimits }): ContainerCheck {
  const argv = containerArgv(
    "true",
    { dir: "/nonexistent-magis-check", env: {}, timeoutMs: 60_000 },
    { ...options, asRoot: false, name: `magis-check-${crypto.randomBytes(6).toString("hex")}` },
  );
  // No copy to mount for the check: drop the volume and the working directory.
  const args = argv.slice(1).filter((arg) => !arg.startsWith("--volume=") && !arg.startsWith("--workdir="));
  const result = spawnSync(argv[0], args, { encoding: "utf8", timeout: 60_000 });
  if (result.error) return { ok: false, why: `${options.engine[0]} did not start: ${result.error.message}` };
  if (result.status !== 0)
    return {
      ok: false,
      why: `${path.basename(options.engine[0])} cannot run ${options.image} here: ${(result.stderr || result.stdout).trim().split("\n").at(-1) ?? `exit ${result.status}`}`,
    };
  return { ok: true };
}
