// `podman run` of a built image with the least privileges under which bubblewrap works in it as the image's user
// (docs/deploy.md gives the same flags for Docker and Kubernetes), and the removal of every container a test starts.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { startProcessGroup, type ProcessGroup } from "../support/process-group.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
/** The seccomp profile shipped for Docker and Kubernetes: the namespace system calls allowed, the machine-wide ones refused. */
export const SECCOMP_PROFILE = path.join(ROOT, "deploy/docker/seccomp-bubblewrap.json");

/**
 * What the container is given, and no more: no capability at all (uid 10001 has none to use anyway, and bwrap is not
 * setuid), no new privileges through exec, the shipped seccomp profile (it allows unshare, clone with namespace flags,
 * mount, umount2 and pivot_root, which Docker's default refuses without CAP_SYS_ADMIN), and /proc unmasked: a user
 * namespace may mount a new /proc only where the container's /proc has no path covered over, as runtimes cover
 * /proc/kcore, /proc/keys, /proc/sys and a few others by default.
 */
export const LEAST_PRIVILEGES = [
  "--cap-drop=ALL",
  "--security-opt=no-new-privileges",
  `--security-opt=seccomp=${SECCOMP_PROFILE}`,
  "--security-opt=unmask=/proc/*",
];

/**
 * What this machine needs of `podman run` besides, unrelated to bubblewrap: runc where crun refuses the host's cgroups
 * (hybrid v1 and v2), no health check, and the open files and processes limits at or below the ones podman's own processes have,
 * which a runtime without CAP_SYS_RESOURCE cannot raise (podman asks for 1048576 open files by default).
 */
function machineFlags(): string[] {
  const limits = fs.readFileSync("/proc/self/limits", "utf8");
  const hard = (name: string) => {
    const value = new RegExp(`^Max ${name}\\s+\\S+\\s+(\\S+)`, "m").exec(limits)?.[1];
    return value === undefined || value === "unlimited" ? Infinity : Number(value);
  };
  // conmon, which starts the runtime, runs with at most 32768 processes where podman cannot raise its limits.
  const [files, processes] = [Math.min(hard("open files"), 1_048_576), Math.min(hard("processes"), 32_768)];
  const runc = spawnSync("runc", ["--version"], { stdio: "ignore" }).error === undefined;
  // No health check timer: podman would ask systemd for one.
  return [...(runc ? ["--runtime=runc"] : []), "--no-healthcheck", `--ulimit=nofile=${files}:${files}`, `--ulimit=nproc=${processes}:${processes}`];
}

/**
 * `magis sandbox check`, started by a shell (pid 1) once 40 other processes have come and gone: its probe of the bot's
 * /proc reads /proc/<the bot's pid> inside the sandbox, whose own PID namespace has pids 1 to 3 (bwrap, the shell,
 * cat), so a bot of pid 1 or 2 (node as the container's first process, or after --init) would read as got out though
 * what it read was the sandbox's own.
 */
export const sandboxCheck = ["sh", "-c", "i=0; while [ $i -lt 40 ]; do /bin/true; i=$((i+1)); done; node /app/bin/magis.js sandbox check; exit $?"];

/** What a container of a test is given: folders bound in, variables, and the privileges to run it with. */
export interface ContainerRun {
  /** host folder → container path, bound read-write. */
  volumes?: Record<string, string>;
  env?: Record<string, string>;
  /** The privileges (default LEAST_PRIVILEGES): a test that shows one of them is needed gives fewer. */
  privileges?: string[];
  /** In the host's network namespace, to reach a server a test started on 127.0.0.1 (default: none at all). */
  hostNetwork?: boolean;
}

const names = new Set<string>();
let count = 0;

/** Starts `args` in a new container of `image` (its entry point replaced by them), removed once it exits. */
export function startContainer(image: string, args: string[], options: ContainerRun = {}): ProcessGroup {
  const name = `magis-image-test-${process.pid}-${++count}`;
  names.add(name);
  return startProcessGroup(
    "podman",
    [
      "run",
      "--rm",
      `--name=${name}`,
      ...machineFlags(),
      ...(options.privileges ?? LEAST_PRIVILEGES),
      options.hostNetwork ? "--network=host" : "--network=none",
      ...Object.entries(options.volumes ?? {}).map(([from, to]) => `--volume=${from}:${to}`),
      ...Object.entries(options.env ?? {}).map(([key, value]) => `--env=${key}=${value}`),
      `--entrypoint=${args[0]}`,
      image,
      ...args.slice(1),
    ],
    { cwd: ROOT, env: process.env },
  );
}

/** Runs `args` in a container to its end: its exit code and output (stdout and stderr together). */
export async function runContainer(image: string, args: string[], options: ContainerRun = {}): Promise<{ code: number | null; output: string }> {
  const group = startContainer(image, args, options);
  const { code } = await group.exited;
  return { code, output: group.output() };
}

/** Removes every container this process started that is still there (a test that failed, a podman that was killed). */
export function removeContainers(): void {
  if (names.size > 0) spawnSync("podman", ["rm", "--force", "--ignore", "--time=0", ...names], { stdio: "ignore" });
  names.clear();
}
