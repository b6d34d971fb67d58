import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** The project's root: what a child started as another user must be able to read (its sources and node_modules). */
const PROJECT = path.resolve(import.meta.dirname, "../..");

/**
 * The command line that runs `argv` as `uid` (setpriv, no groups), with the project readable to that user even where
 * it lies in a folder only root may enter, as CI's clone may: in a mount namespace of its own, the project is bound at a
 * new folder under the temp folder, and every path into the project in `argv` (a file or a file: URL) is taken there.
 * The child gets a temp folder of its own (TMPDIR: tsx keeps its cache there). As root only. `dispose` removes both
 * folders once the child has ended (its mount ends with its namespace).
 */
export function asOrdinaryUser(uid: number, argv: readonly string[]): { argv: string[]; dispose: () => void } {
  const view = fs.mkdtempSync(path.join(os.tmpdir(), "magis-project-view-"));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "magis-user-tmp-"));
  fs.chownSync(tmp, uid, uid);
  const rebased = ["env", `TMPDIR=${tmp}`, ...argv.map((arg) => arg.split(PROJECT).join(view))];
  const bind = ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", 'mount --bind "$0" "$1" && shift && exec "$@"', PROJECT, view];
  const user = ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--"];
  const dispose = () => {
    for (const folder of [view, tmp]) fs.rmSync(folder, { recursive: true, force: true });
  };
  return { argv: [...bind, ...user, ...rebased], dispose };
}
