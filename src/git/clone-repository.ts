import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import git, { type HttpClient } from "isomorphic-git";
import { checkoutPrefix } from "./checkout-name.js";
import type { HistoryWindow } from "./commit-history.js";
import { recentHistory } from "./fetch-recent-history.js";
import { DEFAULT_GIT_IDLE_MS, gitHttpWithTimeout } from "./git-http-with-timeout.js";
import { Checkout } from "./checkout.js";
import { fetchShallowPack, type Alongside } from "./pack/fetch-shallow-pack.js";
import { indexThinPack, packName, type VisitObject } from "./pack/index-pack.js";
import { GatheredPack } from "./pack/gather-pack.js";
import { PackFile, type PackBytes } from "./pack/pack-file.js";
import { PackObjects } from "./pack/pack-objects.js";
import { PackArriving } from "./pack/read-arriving-pack.js";
import { removeTree } from "../lib/remove-tree.js";
import { emptyFolder, putBackTree, takeKeptTree, updateKeptTree } from "./kept-worktree.js";
import { forgetObjects, keepObjects, linkCachedObjects, type ObjectCache } from "./object-cache.js";
import { WorktreeWriter, type ClonedFile, type CloneSink } from "./write-worktree.js";

/** Where a repository lives and the credential that opens it (an installation token). */
export interface GitRemote {
  /** HTTPS clone URL, without credentials. */
  url: string;
  token: string;
  /** Most milliseconds the git server may stay silent before a clone fails (default 60 s). */
  idleTimeoutMs?: number;
  /** Most bytes of pack the server may send (default: no limit); a server that sends more fails the clone. */
  maxBytes?: number;
  /** Most bytes of history pack the server may send when a history is asked for (default 64 MiB); more leaves the history out. */
  maxHistoryBytes?: number;
}

/** The history's byte limit unless the remote says otherwise: two years of a busy project's commits and trees fit. */
export const DEFAULT_MAX_HISTORY_BYTES = 64 * 2 ** 20;

/**
 * Most bytes of a clone's pack held in memory unless withShallowClone is told otherwise; a larger pack goes to a file
 * in the checkout as it arrives and is read from there. Most repositories' shallow packs fit (sympy's is 35 MB),
 * reading them from memory; a repository up to `max_repo_mb` (500 MB by default, and a pack may be twice that) would
 * otherwise hold its whole pack in memory, once per job running.
 */
export const PACK_MEMORY_BYTES = 64 * 2 ** 20;

/** A clone's `.git`, made by fetchInto. */
interface Fetched {
  head: string;
  /** Keeps its pack for the next clone; called once the work tree was written from it, so that a pack that could not serve is never kept. */
  keep: () => void;
}

// Most bytes of inflated blobs a clone holds from indexing its pack until the work tree is written: sympy's 2,087
// files are 35 MB. Past it, the work tree inflates the rest from the pack once more.
const MAX_HELD_BLOB_BYTES = 128 * 2 ** 20;

/**
 * Holds the blobs a pack's indexing inflates (each must be inflated to be named), up to `maxBytes`, so that writing
 * the work tree does not inflate them a second time.
 */
function keptBlobs(maxBytes = MAX_HELD_BLOB_BYTES): { blobs: Map<string, Buffer>; visit: VisitObject } {
  const blobs = new Map<string, Buffer>();
  let bytes = 0;
  return {
    blobs,
    visit: ({ oid, type, data }) => {
      if (type !== "blob" || bytes + data.length > maxBytes) return;
      blobs.set(oid, data);
      bytes += data.length;
    },
  };
}

/** What fetchInto needs: where, what, over which client, and who sees what comes. */
interface FetchInto {
  dir: string;
  remote: GitRemote;
  branch: string;
  http: HttpClient;
  alongside: Alongside | undefined;
  objects: ObjectCache | undefined;
  /** Set to whether this clone stands on kept objects: if it fails, they may be why. */
  attempt: { usedKept: boolean };
  visit: VisitObject;
  writer: WorktreeWriter | undefined;
  /** Most bytes of pack held in memory; a larger pack goes to a file in the checkout's `.git` (see PACK_MEMORY_BYTES). */
  packMemoryBytes: number;
}

/**
 * Makes `dir` a shallow clone of `branch` without its files: the pack fetched (see fetchShallowPack), indexed with
 * Node's zlib (isomorphic-git's clone inflates every object in JavaScript, which took longer than the download),
 * and a `.git` isomorphic-git reads as its own: the branch, its remote-tracking ref and the shallow commits. With
 * `objects`, the packs kept there for the repository are linked in first and only what the branch's commit adds to
 * them is fetched. A whole tree's pack is read as it arrives, and its objects shown to `visit`, and to `writer`, which
 * writes the work tree's files as they come. A pack larger than `packMemoryBytes` is written to its file as it comes
 * and read from there.
 */
async function fetchInto({ dir, remote, branch, http, alongside, objects, attempt, visit, writer, packMemoryBytes }: FetchInto): Promise<Fetched> {
  await git.init({ fs, dir, defaultBranch: branch });
  const packs = path.join(dir, ".git", "objects", "pack");
  fs.mkdirSync(packs, { recursive: true });
  const cached = objects ? await linkCachedObjects(objects, remote.url, packs) : null;
  attempt.usedKept = cached !== null;
  // Named as git names a pack still arriving: no reader takes it for a pack before it is renamed.
  const spill = { file: path.join(packs, "tmp_pack_incoming"), memoryBytes: packMemoryBytes };
  // A whole tree's pack is read as it arrives, while the server still sends the rest; a thin pack's few blobs are
  // read from the packs with the kept ones.
  const incoming = cached
    ? new GatheredPack(spill)
    : new PackArriving((object) => {
        visit(object);
        writer?.see(object);
      }, spill);
  // The writer learns the branch's commit before its pack is asked for.
  const advertised: Alongside | undefined = writer && !cached ? (refs, head) => (writer.expect(head), alongside?.(refs, head)) : alongside;
  const fetched = await fetchShallowPack(http, {
    url: remote.url,
    token: remote.token,
    branch,
    maxBytes: remote.maxBytes,
    alongside: advertised,
    have: cached?.head,
    into: incoming,
  }).finally(() => incoming.close());
  const { head, shallow, common } = fetched;
  let keep = () => {};
  if (fetched.pack) {
    const { name, index } = await storePack(packs, fetched.pack, (pack) => (incoming instanceof PackArriving ? incoming.index() : thinMadeWhole(dir, pack)));
    const stored = PackFile.open(path.join(packs, `${name}.pack`));
    // A server that no longer has the kept commit (a force push, then its garbage collection) sent the whole tree.
    if (objects) keep = () => keepObjects(objects, { url: remote.url, head, pack: { name, pack: stored, index }, on: cached && common ? cached : null });
  }
  fs.writeFileSync(path.join(dir, ".git", "shallow"), shallow.map((oid) => `${oid}\n`).join(""));
  await git.setConfig({ fs, dir, path: "remote.origin.url", value: remote.url });
  await git.setConfig({ fs, dir, path: "remote.origin.fetch", value: `+refs/heads/${branch}:refs/remotes/origin/${branch}` });
  await git.writeRef({ fs, dir, ref: `refs/heads/${branch}`, value: head, force: true });
  await git.writeRef({ fs, dir, ref: `refs/remotes/origin/${branch}`, value: head, force: true });
  return { head, keep };
}

/** A thin pack made whole (see indexThinPack) from the packs the clone's `.git` already holds: the kept ones its deltas stand on. */
async function thinMadeWhole(dir: string, thin: PackBytes): Promise<{ pack: PackBytes; index: Buffer }> {
  let kept: PackObjects | undefined;
  try {
    return await indexThinPack(thin, (oid) => (kept ??= new PackObjects(path.join(dir, ".git"))).read(oid));
  } finally {
    kept?.close();
  }
}

/**
 * Indexes a fetched pack (`index` may make a thin one whole, see indexThinPack) and stores it in the pack folder with
 * its index: written from memory, or its file renamed. Returns its name and index. Every file it opened is closed.
 */
async function storePack(
  packs: string,
  fetched: PackBytes,
  index: (pack: PackBytes) => Promise<Buffer | { pack: PackBytes; index: Buffer }>,
): Promise<{ name: string; index: Buffer }> {
  const opened = [fetched];
  try {
    const indexed = await index(fetched);
    const { pack, index: idx } = Buffer.isBuffer(indexed) ? { pack: fetched, index: indexed } : indexed;
    opened.push(pack);
    const name = packName(pack);
    const file = path.join(packs, `${name}.pack`);
    // A kept pack of the same name is linked here already, and the same bytes: writing through the link would rewrite the cache's file.
    if (fs.existsSync(file)) {
      if (!Buffer.isBuffer(pack)) fs.rmSync(pack.file, { force: true });
      return { name, index: idx };
    }
    if (Buffer.isBuffer(pack)) fs.writeFileSync(file, pack);
    else fs.renameSync(pack.file, file);
    fs.writeFileSync(path.join(packs, `${name}.idx`), idx);
    return { name, index: idx };
  } finally {
    for (const pack of opened) if (!Buffer.isBuffer(pack)) pack.close();
  }
}

/**
 * Clones `branch` shallowly (depth 1, single branch, no tags) into a new temporary directory, runs `work` on it,
 * and removes the directory afterwards whether `work` succeeded or not (a killed process's are removed by the next
 * app's removeLeftoverCheckouts). `parentDir` (default: the system's temp directory) is where the checkout goes; a
 * tmpfs there makes checkouts of large repositories much faster. With `files: "none"` the work tree stays empty
 * and the caller writes the few files it reads (see Checkout.writeFiles); otherwise `sink` (a job's index) is handed
 * the files as they are written, the first of them while the server still sends the pack (see WorktreeWriter, CloneSink). With `history`, the
 * branch's commits within that window are fetched alongside the clone (see recentHistory): the clone and `work` do
 * not wait for them, and they are cut off when `work` ends.
 * With `objects`, the objects an earlier clone of the repository kept there are used, and only what the branch's
 * commit adds to them is fetched; this clone's pack is kept there in turn (see ObjectCache), and so is the history,
 * of which the next clone fetches only the commits made since.
 */
export async function withShallowClone<T>(
  remote: GitRemote,
  branch: string,
  work: (checkout: Checkout) => Promise<T>,
  options: {
    parentDir?: string;
    files?: "all" | "none";
    sink?: CloneSink;
    history?: HistoryWindow;
    objects?: ObjectCache;
    /** Most bytes of pack held in memory (default PACK_MEMORY_BYTES); past it the pack goes to a file in the checkout. */
    packMemoryBytes?: number;
  } = {},
): Promise<T> {
  const packMemoryBytes = options.packMemoryBytes ?? PACK_MEMORY_BYTES;
  const parent = options.parentDir ?? os.tmpdir();
  fs.mkdirSync(parent, { recursive: true });
  // Named by this process, so a later one can remove it if this process is killed before the finally below runs.
  const dir = fs.mkdtempSync(path.join(parent, checkoutPrefix()));
  const idleMs = remote.idleTimeoutMs ?? DEFAULT_GIT_IDLE_MS;
  let checkout: Checkout | undefined;
  const history = options.history
    ? recentHistory({
        token: remote.token,
        window: options.history,
        maxBytes: remote.maxHistoryBytes ?? DEFAULT_MAX_HISTORY_BYTES,
        idleMs,
        now: Date.now() / 1000,
        ...(options.objects && { kept: { cache: options.objects, url: remote.url } }),
      })
    : undefined;
  try {
    // The history starts on the first advertisement only, whichever clone below reads it.
    let started = false;
    const alongside: Alongside | undefined = history && ((advertised, head) => ((started = true), history.start(advertised, head)));
    const attempt = { usedKept: false };
    const clone = async (objects: ObjectCache | undefined): Promise<Fetched> => {
      // Gives up on a git server that goes silent.
      const http = gitHttpWithTimeout(idleMs);
      // A whole tree's blobs, held as its index inflates them.
      const { blobs, visit } = keptBlobs();
      let writer: WorktreeWriter | undefined;
      const { sink } = options;
      const onFiles = sink && ((files: ClonedFile[]) => sink.add(files));
      const newWriter = () => new WorktreeWriter(dir, { ...(onFiles && { onFiles }), blobs });
      // The last job's work tree, when one is kept: only what the branch's commit changed is written into it.
      const taken = objects && options.files !== "none" ? await takeKeptTree(objects, remote.url, dir) : null;
      if (options.files !== "none") {
        // A clone tried again hands over what it writes, not what the failed one wrote.
        sink?.start();
        if (!taken) writer = newWriter();
      }
      try {
        const fetched = await http.settle(
          fetchInto({ dir, remote, branch, http, alongside: started ? undefined : alongside, objects, attempt, visit, writer, packMemoryBytes }),
        );
        if (taken) {
          const updated = await updateKeptTree(dir, taken, fetched.head, onFiles);
          if (!updated) {
            // The packs no longer hold the kept tree's commit, or the tree is not whole: written afresh.
            await emptyFolder(dir, ".git");
            sink?.start();
          }
          const { folders } = updated ?? (await newWriter().write(fetched.head));
          sink?.done(folders);
        }
        if (writer) {
          const { folders } = await writer.write(fetched.head);
          sink?.done(folders);
        }
        return fetched;
      } finally {
        // A clone that failed leaves no write running into the folder removed after it.
        await writer?.abandon();
        blobs.clear();
      }
    };
    let fetched: Fetched;
    try {
      fetched = await clone(options.objects);
    } catch (error) {
      if (!options.objects || !attempt.usedKept) throw error;
      // Kept objects that could not serve (one missing, whatever the reason): forgotten, and the whole tree fetched.
      forgetObjects(options.objects, remote.url);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { mode: 0o700 });
      fetched = await clone(options.objects);
    }
    fetched.keep();
    const { head } = fetched;
    checkout = new Checkout({ dir, branch, head, ...(history && { history: history.result }) });
    return await work(checkout);
  } finally {
    checkout?.close();
    // No request of this checkout's outlives it.
    await history?.stop();
    // Kept for the repository's next job, as the commit it was checked out at (never as the job left it); else removed.
    const kept =
      checkout && options.objects && options.files !== "none" && (await putBackTree(options.objects, remote.url, dir, checkout.head).catch(() => false));
    // Removed without blocking: a large checkout's removal takes seconds, which the status edit that shows the pull
    // request would otherwise wait behind.
    if (!kept) await removeTree(dir);
  }
}
