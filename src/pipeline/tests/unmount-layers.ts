import fs from "node:fs";
import path from "node:path";
import type { LayeredCopy } from "../../environment/index.js";

/** A layer that stayed mounted, and why. */
export interface StuckLayer {
  target: string;
  why: string;
}

/**
 * Unmounts every layer of `layers`, each tried whatever the others did, taking those unmounted out of the list (the
 * stuck ones stay in it, for a later try). Returns the stuck ones with why.
 */
export function unmountLayers(layers: LayeredCopy[]): StuckLayer[] {
  const stuck: StuckLayer[] = [];
  for (const layer of [...layers]) {
    try {
      layer.unmount();
      layers.splice(layers.indexOf(layer), 1);
    } catch (error) {
      stuck.push({ target: layer.target, why: error instanceof Error ? error.message : String(error) });
    }
  }
  return stuck;
}

/**
 * Removes the folder `own` with everything in it but the stuck layers' targets and their `.layers` folders (removing
 * through a mount would walk into it), and `own` itself when nothing stuck is left in it. Never throws: returns what
 * could not be removed, with why.
 */
export function removeAllBut(own: string, stuck: readonly StuckLayer[]): StuckLayer[] {
  const kept = new Set(stuck.flatMap(({ target }) => [target, `${target}.layers`]));
  const failed: StuckLayer[] = [];
  const removeOne = (at: string) => {
    try {
      fs.rmSync(at, { recursive: true, force: true });
    } catch (error) {
      failed.push({ target: at, why: error instanceof Error ? error.message : String(error) });
    }
  };
  if (kept.size === 0) {
    removeOne(own);
    return failed;
  }
  let names: string[] = [];
  try {
    names = fs.readdirSync(own);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") failed.push({ target: own, why: String(error) });
  }
  for (const name of names) {
    const at = path.join(own, name);
    if (!kept.has(at)) removeOne(at);
  }
  return failed;
}
