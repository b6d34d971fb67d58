import { listMounts } from "../../lib/list-mounts.js";
import { LAYERED, unmount } from "../../lib/unmount-under.js";
import { isLayersOwnerGone, layersOf } from "./mount-overlay.js";

/**
 * Detaches the overlays over kept environments that processes which are gone left mounted (killed mid-job, so the
 * job's own unmount never ran): each one whose `<target>.layers/owner` names a process that no longer runs. Another
 * live process's are left alone. Returns the targets unmounted and those that could not be, with why.
 */
export function unmountStaleOverlays(): { unmounted: string[]; failed: { target: string; why: string }[] } {
  const done = { unmounted: [] as string[], failed: [] as { target: string; why: string }[] };
  for (const mount of listMounts().reverse()) {
    if (!LAYERED.has(mount.fstype) || !isLayersOwnerGone(layersOf(mount.target))) continue;
    const why = unmount(mount.target, mount.fstype, true);
    if (why) done.failed.push({ target: mount.target, why });
    else done.unmounted.push(mount.target);
  }
  return done;
}
