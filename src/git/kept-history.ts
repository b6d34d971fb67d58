import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { CommitRecord } from "./commit-history.js";
import {
  allPresent,
  evict,
  folderOf,
  HISTORY_MANIFEST,
  KEPT_HISTORY,
  keepQuietly,
  PACK_NAME,
  privateFolder,
  writePack,
  type KeptPack,
  type ObjectCache,
} from "./object-cache.js";
import { PackObjects } from "./pack/pack-objects.js";
import { writeWhole } from "./write-whole.js";
import { parseCommit } from "./pack/parse-commit.js";
import type { EarlierObjects } from "./pack/read-history-pack.js";

/**
 * A branch's recent history as a worker keeps it between jobs, beside the repository's objects (see ObjectCache): the
 * commits compared so far, the commit they lead up to, and the history packs they came from. The next job's fetch
 * says it has that commit, and the server sends only the commits made since and the trees they bring; the packs
 * hold the parents and trees those new commits are compared with, which the server no longer sends.
 *
 * What it holds is what a whole fetch would give, and sometimes more: commits of the window that a whole fetch could
 * no longer compare, as their parent has since left the window, and the commits behind a merge of a branch older
 * than the window, which git's `deepen-since` cuts the history at. Each is a commit of the window, reachable from the
 * head, with the files it changed: the kept head is a parent of one of the new commits, or the history is read whole.
 */
export interface KeptHistory {
  folder: string;
  /** The branch's commit the history was read at. */
  head: string;
  /** The window's start it was fetched with (seconds since 1970): it holds every commit since, and maybe older ones. */
  since: number;
  /** Pack names (`pack-<checksum>`), each with its `.pack` and `.idx` in `folder`. */
  packs: string[];
  /** The commits of the window, newest first, as compareCommits made them. */
  commits: CommitRecord[];
}

/** Packs a history gathers before the next one is fetched whole again, leaving its older trees behind. */
const MAX_HISTORY_PACKS = 16;

const OID = /^[0-9a-f]{40}$/;

const manifestSchema = z.object({
  head: z.string().regex(OID),
  since: z.number().int(),
  packs: z.array(z.string().regex(PACK_NAME)).min(1),
  commits: z.array(z.object({ oid: z.string().regex(OID), time: z.number().int(), message: z.string(), files: z.array(z.string()) })),
});

function historyFolder(cache: ObjectCache, url: string): string {
  return path.join(folderOf(cache, url), KEPT_HISTORY);
}

/**
 * The history the cache keeps for `url`, or null when it keeps none that serves: no manifest, one that does not
 * read, a pack it lists missing, as many packs as a history gathers, or packs of more than `maxBytes` in all (the
 * most a history fetch may bring: they are read into memory).
 */
export function keptHistory(cache: ObjectCache, url: string, maxBytes = Infinity): KeptHistory | null {
  if (!privateFolder(cache.dir)) return null;
  const folder = historyFolder(cache, url);
  let manifest: z.infer<typeof manifestSchema>;
  try {
    manifest = manifestSchema.parse(JSON.parse(fs.readFileSync(path.join(folder, HISTORY_MANIFEST), "utf8")));
  } catch {
    return null;
  }
  if (manifest.packs.length >= MAX_HISTORY_PACKS || !allPresent(folder, manifest.packs)) return null;
  let bytes = 0;
  try {
    for (const pack of manifest.packs) bytes += fs.statSync(path.join(folder, `${pack}.pack`)).size;
  } catch {
    // Removed meanwhile (another job's whole history replacing it, or eviction).
    return null;
  }
  return bytes > maxBytes ? null : { folder, ...manifest };
}

/** The commits and trees a kept history's packs hold, read as they are asked for; `close` closes the packs' files. */
export function earlierObjects(kept: KeptHistory): EarlierObjects & { close(): void } {
  const packs = new PackObjects({ folder: kept.folder, packs: kept.packs });
  return {
    close: () => packs.close(),
    commit: (oid) => {
      const object = packs.read(oid);
      return object?.type === "commit" ? parseCommit(object.data, oid) : undefined;
    },
    tree: (oid) => {
      const object = packs.read(oid);
      return object?.type === "tree" ? object.data : undefined;
    },
  };
}

/**
 * Keeps a history read at `history.head` for the repository at `url`, with the pack it was read from. With `on`, the
 * pack holds what `head` adds to that kept history: it is kept beside its packs if they are all still there (they
 * hold the parents of its commits). Without, it is the whole history and replaces whatever was kept. Then the
 * repositories used longest ago are removed until all fit. Never throws (see keepQuietly).
 */
export function keepHistory(
  cache: ObjectCache,
  { url, history, pack, on }: { url: string; history: Pick<KeptHistory, "head" | "since" | "commits">; pack: KeptPack; on: KeptHistory | null },
): void {
  keepQuietly(() => {
    if (!privateFolder(cache.dir)) return;
    const folder = historyFolder(cache, url);
    // Replaced meanwhile by another job's whole history, or evicted: this pack alone holds too little.
    const packs = writePack(folder, pack, on?.packs ?? null, (folder) => fs.rmSync(folder, { recursive: true, force: true }));
    if (!packs) return;
    writeWhole(path.join(folder, HISTORY_MANIFEST), JSON.stringify({ head: history.head, since: history.since, packs, commits: history.commits }));
    evict(cache);
  });
}

/** Forgets the history the cache keeps for `url` (it could not serve); the next fetch reads it whole. */
export function forgetHistory(cache: ObjectCache, url: string): void {
  try {
    fs.rmSync(historyFolder(cache, url), { recursive: true, force: true });
  } catch {
    // Not ours to remove: keepHistory fails the same way and keeps nothing.
  }
}
