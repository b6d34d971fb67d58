import fs from "node:fs";

/** What a sandbox shows of the host: the system folders it mounts, and the folders its commands need. */
export interface MountedView {
  /** The folders bound read-only at their own place (/usr, /etc, /opt…), as real paths. */
  roots: readonly string[];
  /** Folders the commands need (those of their PATH): a folder that holds one is not hidden whole. */
  needed: readonly string[];
}

/**
 * bwrap arguments that hide those of `paths` the mounted system folders show: an empty read-only tmpfs over a folder,
 * /dev/null over a file. Each is taken at its real place (a link to /etc/magis hides /etc/magis). One outside the mounted
 * folders is not there to hide, nor one that does not exist now. A folder that holds a folder the commands need (a
 * working directory of /usr/local holds /usr/local/bin) is not hidden whole: the bot's files listed in it are, one by one.
 */
export function hideBotPaths(paths: readonly string[], view: MountedView): string[] {
  const needed = view.needed.flatMap((folder) => located(folder)?.real ?? []);
  const folders = new Set<string>();
  const files = new Set<string>();
  for (const given of paths) {
    const found = located(given);
    if (!found || !view.roots.some((root) => inside(found.real, root))) continue;
    if (!found.folder) files.add(found.real);
    else if (!needed.some((folder) => folder === found.real || inside(folder, found.real))) folders.add(found.real);
  }
  const outer = [...folders].filter((folder) => ![...folders].some((other) => inside(folder, other))).sort();
  const lone = [...files].filter((file) => !outer.some((folder) => inside(file, folder))).sort();
  return [...outer.flatMap((folder) => ["--tmpfs", folder, "--remount-ro", folder]), ...lone.flatMap((file) => ["--ro-bind", "/dev/null", file])];
}

/** Where a path really is, links resolved, and whether it is a folder; undefined when nothing is there. */
function located(given: string): { real: string; folder: boolean } | undefined {
  try {
    const real = fs.realpathSync(given);
    return { real, folder: fs.statSync(real).isDirectory() };
  } catch {
    return undefined;
  }
}

function inside(child: string, parent: string): boolean {
  return child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
}
