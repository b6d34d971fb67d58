import { sliceWork, type Pause } from "../../lib/slice-work.js";
import { keepWindow, type CommitRecord, type HistoryWindow } from "../commit-history.js";
import { diffTrees, ParsedTrees } from "./diff-trees.js";
import { resolvePack, type PackEntry } from "./index-pack.js";
import type { PackBytes } from "./pack-file.js";
import { parseCommit, type ParsedCommit } from "./parse-commit.js";

/** Most bytes of inflated trees a history keeps while it compares commits. */
const MAX_TREE_BYTES = 256 * 1024 * 1024;

/** What a history pack holds: its commits, parsed; its trees' bytes; and its entries, named, from which its index is written. */
export interface HistoryObjects {
  commits: Map<string, ParsedCommit>;
  trees: Map<string, Buffer>;
  entries: PackEntry[];
}

/**
 * Commits and trees an earlier history pack holds (see keptHistory): the parents of the commits a later, smaller pack
 * adds, and the trees those parents and the new commits share with the history already read.
 */
export interface EarlierObjects {
  commit(oid: string): ParsedCommit | undefined;
  tree(oid: string): Buffer | undefined;
}

/**
 * Reads a history pack (commits and trees, see fetchHistoryPack) whole. Blobs are not kept: a server that sent them
 * anyway has already been held to the pack's byte limit. Throws on a pack that is corrupt, or whose trees inflate to
 * more than `maxTreeBytes`.
 */
export async function readHistoryObjects(pack: PackBytes, pause: Pause = sliceWork(), maxTreeBytes = MAX_TREE_BYTES): Promise<HistoryObjects> {
  const commits = new Map<string, ParsedCommit>();
  const trees = new Map<string, Buffer>();
  let kept = 0;
  const entries = await resolvePack(pack, pause, (object) => {
    if (object.type === "commit") commits.set(object.oid, parseCommit(object.data, object.oid));
    else if (object.type === "tree") {
      // Deltas let a small pack hold trees many times its size; two years of sympy's inflate to 15 MB.
      if ((kept += object.data.length) > maxTreeBytes)
        throw new Error(
          `the history's trees inflate to more than ${Math.round(maxTreeBytes / 2 ** 20)} MB, more than a checkout keeps; the history was left out`,
        );
      trees.set(object.oid, object.data);
    }
  });
  return { commits, trees, entries };
}

/**
 * The commits of a history pack within `window` of the time of `head`, each with the files it changed against its
 * parent. Left out: merges (no one parent to compare with), root commits, the commits at the pack's boundary, whose
 * parent the server did not send (`boundary`, or found nowhere), and a commit that changes more than a diff may walk
 * (see DIFF_LIMITS), which says nothing of any one file. With `earlier`, a parent or tree the pack lacks is looked up
 * there: the pack then holds what `head` adds to an earlier history, and only its own commits are compared. Only
 * the commits the window keeps are compared, so a busy repository's older commits cost no tree reading. Throws when
 * the pack lacks the head commit, or a tree is found nowhere.
 */
export async function compareCommits(
  objects: HistoryObjects,
  {
    head,
    window,
    pause = sliceWork(),
    earlier,
    boundary = new Set(),
  }: { head: string; window: HistoryWindow; pause?: Pause; earlier?: EarlierObjects; boundary?: ReadonlySet<string> },
): Promise<CommitRecord[]> {
  const { commits, trees } = objects;
  const headTime = commits.get(head)?.time;
  if (headTime === undefined) throw new Error(`corrupt pack: the history pack does not hold the commit ${head} it was asked for`);
  const parentOf = (oid: string, commit: ParsedCommit) =>
    commit.parents.length === 1 && !boundary.has(oid) ? (commits.get(commit.parents[0]!) ?? earlier?.commit(commit.parents[0]!)) : undefined;
  const compared = [...commits].flatMap(([oid, commit]) => (parentOf(oid, commit) ? [{ oid, time: commit.time, message: commit.message, files: [] }] : []));
  const parsed = new ParsedTrees((oid) => trees.get(oid) ?? earlier?.tree(oid));
  const records: CommitRecord[] = [];
  for (const record of keepWindow(compared, headTime, window)) {
    const commit = commits.get(record.oid)!;
    const files = diffTrees(parsed, parentOf(record.oid, commit)!.tree, commit.tree);
    if (files) records.push({ ...record, files });
    await pause();
  }
  return records;
}
