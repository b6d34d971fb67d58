import { sliceWork, type Pause } from "../../slice-work.js";
import { keepWindow, type CommitRecord, type HistoryWindow } from "../commit-history.js";
import { diffTrees } from "./diff-trees.js";
import { resolvePack } from "./index-pack.js";
import { parseCommit, type ParsedCommit } from "./parse-commit.js";

/** Most bytes of inflated trees a history keeps while it compares commits. */
const MAX_TREE_BYTES = 256 * 1024 * 1024;

/**
 * The commits of a history pack (commits and trees, see fetchHistoryPack) within `window` of the time of `head`,
 * each with the files it changed against its parent. Left out: merges (no one parent to compare with), root commits,
 * the commits at the pack's boundary, whose parent the server did not send, and a commit that changes more than a
 * diff may walk (see DIFF_LIMITS), which says nothing of any one file. Only the commits the window keeps
 * are compared, so a busy repository's older commits cost no tree reading. Throws on a pack that is corrupt or
 * lacks the head commit or a tree.
 */
export async function readHistoryPack(
  pack: Buffer,
  head: string,
  window: HistoryWindow,
  pause: Pause = sliceWork(),
  maxTreeBytes = MAX_TREE_BYTES,
): Promise<CommitRecord[]> {
  const commits = new Map<string, ParsedCommit>();
  const trees = new Map<string, Buffer>();
  let kept = 0;
  // Blobs are not kept: a server that sent them anyway has already been held to the pack's byte limit.
  await resolvePack(pack, pause, (object) => {
    if (object.type === "commit") commits.set(object.oid, parseCommit(object.data, object.oid));
    else if (object.type === "tree") {
      // Deltas let a small pack hold trees many times its size; two years of sympy's inflate to 15 MB.
      if ((kept += object.data.length) > maxTreeBytes) throw new Error(`the history's trees inflate to more than ${Math.round(maxTreeBytes / 2 ** 20)} MB, more than a checkout keeps; the history was left out`);
      trees.set(object.oid, object.data);
    }
  });
  const headTime = commits.get(head)?.time;
  if (headTime === undefined) throw new Error(`corrupt pack: the history pack does not hold the commit ${head} it was asked for`);
  const compared = [...commits].flatMap(([oid, commit]) =>
    commit.parents.length === 1 && commits.has(commit.parents[0]!) ? [{ oid, time: commit.time, message: commit.message, files: [] }] : [],
  );
  const records: CommitRecord[] = [];
  for (const record of keepWindow(compared, headTime, window)) {
    const commit = commits.get(record.oid)!;
    const parent = commits.get(commit.parents[0]!)!;
    const files = diffTrees((oid) => trees.get(oid), parent.tree, commit.tree);
    if (files) records.push({ ...record, files });
    await pause();
  }
  return records;
}
