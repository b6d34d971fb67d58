import fs from "node:fs";
import path from "node:path";
import { isStaleKeeping, KEEPING } from "./open-keeping-folder.js";
import { unmountStaleOverlays } from "./unmount-stale-overlays.js";

/** The name of a folder on its way out, beside the kept environments: renamed so, then removed. */
export const REMOVING = ".removing-";

/**
 * Takes away what keepers and removers that stopped left under `folder`: each `.keeping-` folder untouched for over
 * STALE_KEEPING_MS is claimed (renamed out of sight at once, so that its keeper, were it only slow, can no longer
 * rename it into place) and removed; with `removing`, every `.removing-` folder is removed too (when a shelf opens:
 * this process has none of its own yet). First, the overlays over kept environments that jobs of processes which are
 * gone left mounted are detached (see unmountStaleOverlays), so that neither their folders nor the kept ones under
 * them stay held.
 */
export function sweepLeftovers(
  folder: string,
  act: { claim: (dir: string) => void; remove: (dir: string) => void; removing: boolean; warn?: (target: string, why: string) => void },
): void {
  for (const { target, why } of unmountStaleOverlays().failed) act.warn?.(target, why);
  for (const scope of listNames(folder)) {
    if (scope.startsWith(".")) continue;
    for (const name of listNames(path.join(folder, scope))) {
      const dir = path.join(folder, scope, name);
      if (name.startsWith(KEEPING) && isStaleKeeping(dir)) act.claim(dir);
      else if (act.removing && name.startsWith(REMOVING)) act.remove(dir);
    }
  }
}

function listNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
