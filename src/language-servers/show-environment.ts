import fs from "node:fs";
import path from "node:path";
import type { Placement, ServerEnvironment } from "./types.js";

/** What of an environment a server's jail shows: the folders checked to lie inside it. */
export interface ShownEnvironment {
  /** Python's search paths, host folders in the interpreter's order (the checkout's own mapped into it). */
  python: string[];
  /** The `node_modules` folders, each with where inside the checkout it is shown. */
  nodeModules: Placement[];
}

/** Nothing of an environment: a job without one, or a server started before its environment was known. */
export const NO_ENVIRONMENT: ServerEnvironment = { roots: [], python: [], nodeModules: [] };

/**
 * The folders of `environment` a server on `root` may be shown: each an existing folder whose real path (links
 * resolved) lies inside one of the environment's roots or the checkout. A folder reached through a link that leads
 * out of them (a `node_modules` that is a link to /etc) is left out: bwrap would mount what the link points at.
 */
export function showEnvironment(root: string, environment: ServerEnvironment): ShownEnvironment {
  const within = [root, ...environment.roots].flatMap((dir) => {
    try {
      return [fs.realpathSync(dir)];
    } catch {
      return [];
    }
  });
  const inside = (dir: string) => {
    try {
      const real = fs.realpathSync(dir);
      return fs.statSync(real).isDirectory() && within.some((top) => real === top || real.startsWith(`${top}/`));
    } catch {
      return false;
    }
  };
  const python = [...new Set(environment.python.filter((dir) => path.isAbsolute(dir) && inside(dir)))];
  const nodeModules = environment.nodeModules.filter((p) => inside(p.from) && relativeInside(p.at) !== null);
  return { python, nodeModules };
}

/** `at` as a normal path below the checkout, or null when it is not one (absolute, empty, climbing out). */
function relativeInside(at: string): string | null {
  const normal = path.posix.normalize(at);
  return path.posix.isAbsolute(normal) || normal === "." || normal.startsWith("../") || normal === ".." ? null : normal;
}

/**
 * bwrap's arguments that show the checkout `root` read-only with each folder of `placed` at its place inside it. A
 * folder of the checkout on the way to a place is made a tmpfs holding the checkout's own entries (each mounted from
 * the checkout; a link made as the same link, never followed) and the way on, then made read-only: bwrap 0.8 has no
 * overlay, and a read-only checkout cannot take a new mount point. A place reached through a link or a file of the
 * checkout is left out. `host` is where the checkout's files are on the host (its real path).
 */
export function placeInCheckout(root: string, host: string, placed: readonly Placement[]): string[] {
  const targets = new Map<string, string>();
  const ways = new Set<string>([""]);
  for (const { from, at } of placed) {
    const relative = relativeInside(at);
    if (relative === null) continue;
    const parts = relative.split("/");
    const prefixes = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
    // Every folder on the way must be a folder of the checkout or missing from it (the setup made it).
    if (prefixes.some((prefix) => kindOf(path.join(host, prefix)) === "other")) continue;
    for (const prefix of prefixes) ways.add(prefix);
    targets.set(relative, fs.realpathSync(from));
  }
  if (targets.size === 0) return ["--ro-bind", host, root];
  const args: string[] = [];
  const made: string[] = [];
  // Shallower first: a folder's tmpfs is mounted before what goes into it.
  for (const way of [...ways].sort((a, b) => a.split("/").length - b.split("/").length || a.localeCompare(b))) {
    const at = way === "" ? root : path.join(root, way);
    const from = way === "" ? host : path.join(host, way);
    if (way !== "" && kindOf(from) === "missing") {
      args.push("--dir", at);
      continue;
    }
    args.push("--tmpfs", at);
    made.push(at);
    for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
      const relative = way === "" ? entry.name : `${way}/${entry.name}`;
      if (ways.has(relative) || targets.has(relative)) continue;
      const source = path.join(from, entry.name);
      const target = path.join(at, entry.name);
      if (entry.isDirectory() || entry.isFile()) args.push("--ro-bind", source, target);
      else if (entry.isSymbolicLink()) args.push("--symlink", fs.readlinkSync(source), target);
    }
  }
  for (const [relative, from] of targets) args.push("--ro-bind", from, path.join(root, relative));
  // Deeper first: a folder is made read-only once everything in it is mounted.
  for (const at of made.reverse()) args.push("--remount-ro", at);
  return args;
}

/** Whether `at` is a folder (not a link to one), missing, or something else. */
function kindOf(at: string): "folder" | "missing" | "other" {
  try {
    return fs.lstatSync(at).isDirectory() ? "folder" : "other";
  } catch {
    return "missing";
  }
}
