import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkoutPrefix, THIS_PROCESS } from "../git/checkout-name.js";
import { bindSystemDirs, findProgram } from "../sandbox/index.js";
import { placeInCheckout } from "./show-environment.js";
import type { Placement } from "./types.js";

/**
 * The system folders a server's Node needs (its libraries and their loader), read-only. Not /etc, /opt or any home or
 * work folder: the bot's own files (its key, its `.env`, its database) live there.
 */
const SYSTEM_DIRS = ["/usr", "/bin", "/lib", "/lib32", "/lib64", "/libx32"];

/** What a server sees in its jail besides the system folders: folders it may read, and one it may write. */
export interface JailFolders {
  /** Folders mounted read-only at their own paths: the server's own package folders, the environment's search paths. */
  reads: string[];
  /** The checkout, mounted read-only at its own path, with the environment's folders `placed` inside it. */
  checkout?: { root: string; placed: readonly Placement[] };
  /** The server's temp folder, mounted writable at its own path; the server runs in it. */
  temp: string;
}

/** Whether the servers can be confined here: the bubblewrap program that does it, or why not. */
export type Confinement = { program: string } | { why: string };

let found: Promise<Confinement> | undefined;

/**
 * Whether bubblewrap confines a server on this machine, checked once per process by running this Node in an empty
 * jail: bwrap must be on the bot's PATH and user namespaces allowed (unprivileged containers often refuse them).
 */
export function findConfinement(): Promise<Confinement> {
  found ??= new Promise((resolve) => {
    const program = findProgram("bwrap", process.env.PATH ?? "");
    if (!program) return resolve({ why: "bubblewrap is not installed (apt-get install bubblewrap)" });
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), checkoutPrefix(THIS_PROCESS, "language-server")));
    const argv = confinedArgv(program, [process.execPath, "-e", ""], { reads: [], temp }, {});
    execFile(argv[0], argv.slice(1), { env: {}, timeout: 10_000 }, (error, _stdout, stderr) => {
      fs.rmSync(temp, { recursive: true, force: true });
      resolve(error ? { why: `bubblewrap does not work here: ${String(stderr).trim().split("\n").at(-1) || error.message}` } : { program });
    });
  });
  return found;
}

/**
 * The command line that runs `command` (this process's Node and a server script) in a bubblewrap jail that shows only
 * the system's program folders, this Node, `folders` and an empty /dev: whatever a repository's config, imports or
 * links name outside them does not exist there, links inside the environment's folders included. No network, no other process, no capability, and the jail dies with
 * the bot, killed or not.
 */
export function confinedArgv(program: string, command: string[], folders: JailFolders, env: Record<string, string>): [string, ...string[]] {
  const node = fs.realpathSync(process.execPath);
  const binds = (option: string, dirs: string[]) => dirs.flatMap((dir) => [option, fs.realpathSync(dir), dir]);
  return [
    program,
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    ...bindSystemDirs(SYSTEM_DIRS).mounts,
    // Where a Node was installed by hand (nvm, a tarball), its folder may hold more than Node: the program alone.
    ...(SYSTEM_DIRS.some((dir) => node.startsWith(`${dir}/`)) ? [] : ["--ro-bind", node, node]),
    "--dev",
    "/dev",
    ...binds("--ro-bind", folders.reads),
    ...(folders.checkout ? placeInCheckout(folders.checkout.root, fs.realpathSync(folders.checkout.root), folders.checkout.placed) : []),
    ...binds("--bind", [folders.temp]),
    "--chdir",
    folders.temp,
    "--clearenv",
    ...Object.entries(env).flatMap(([name, value]) => ["--setenv", name, value]),
    "--",
    ...command,
  ];
}
