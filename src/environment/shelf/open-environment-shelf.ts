import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { EnvironmentScope, EnvironmentShelf, KeptEnvironment, KeptEnvironmentRecord } from "../types.js";
import { copyTree } from "./copy-tree.js";
import { dropHold, isHeldOnDisk, placeHold } from "./hold-marker.js";
import { measureTree } from "./measure-tree.js";
import { HEARTBEAT_MS, openKeepingFolder } from "./open-keeping-folder.js";
import { readKeptRecord } from "./read-kept-record.js";
import { removeTree } from "../../lib/remove-tree.js";
import { REMOVING, sweepLeftovers } from "./sweep-leftovers.js";

/** What a shelf is opened with. */
export interface ShelfOptions {
  /** Where the kept environments live (MAGIS_ENV_DIR); made 0700 when the first is kept. */
  folder: string;
  /** The bound on the bytes kept in all (MAGIS_ENV_CACHE_MB); 0 keeps nothing. */
  maxBytes: number;
  /** Where a record dropped, an environment refused or evicted, and a failed removal are said. */
  log?: { info: (obj: object, msg: string) => void; warn: (obj: object, msg: string) => void };
  /** The clock of `usedAt` and `builtAt` (tests give their own). */
  now?: () => Date;
  /** How often a keeper touches its `.keeping-` folder while it copies (HEARTBEAT_MS; tests give a short one). */
  heartbeatMs?: number;
}

/** A key is hex: it names a folder. */
const KEY = /^[0-9a-f]{16,128}$/;

/** The file a clear leaves in a held environment's folder beside its removed record: a find's record written after it is removed again. */
const CLEARED = ".cleared";
/** A GitHub `owner/name`, as its scope folder is named: `owner+name`. */
const SAFE_SCOPE = /^[a-z0-9][a-z0-9._-]*\+[a-z0-9._-]+$/;

/**
 * The kept environments under `folder`: `<scope>/<key>/{repo,home,record.json}`, the scope `owner+name` for a GitHub
 * repository and `local-<hash>` for a checkout's folder. Everything is read from the disk at each call (a handful of
 * small records), so that another process on the machine that removes or keeps one (the web role's uninstall, `magis
 * env clear`) is seen at once; what this process has handed out (`find`, not yet `release`d) is never evicted. An
 * environment is kept by copying into a `.keeping-` folder beside its place and renaming it there, so that a crash
 * leaves no half-kept environment, only a leftover that a sweep takes once it has gone untouched for an hour (a live
 * keeper touches its folder every few seconds); one goes by being renamed out of sight first.
 * A handed-out environment is for copying from: the workbench copies its folders into a run's own, and the sandbox
 * hides this folder from every command (listBotPaths).
 */
export function openEnvironmentShelf(options: ShelfOptions): EnvironmentShelf {
  const { folder, maxBytes, log, now = () => new Date(), heartbeatMs = HEARTBEAT_MS } = options;
  if (fs.existsSync(folder)) ownFolder(folder);
  /** Names this shelf's `.keeping-` folders apart from those of other workers on the same volume. */
  const instance = randomBytes(6).toString("hex");
  /** The environments this process handed out: how many holders each has, and their marker files (see placeHold). */
  const held = new Map<string, string[]>();
  /** Held here or by another live process on the same folder (its marker files). */
  const isHeld = (dir: string) => held.has(dir) || isHeldOnDisk(dir);
  /** Takes this process's hold `marker` on `dir` away. */
  const dropOwnHold = (dir: string, marker: string) => {
    dropHold(marker);
    const others = (held.get(dir) ?? []).filter((one) => one !== marker);
    if (others.length > 0) held.set(dir, others);
    else held.delete(dir);
  };
  const doomed = new Set<string>();
  const removals = new Set<Promise<void>>();
  const counts = { hits: 0, misses: 0, builds: 0, buildSeconds: 0, evicted: 0 };

  const placeOf = (scope: EnvironmentScope, key: string) => path.join(folder, scopeFolder(scope.repo), checkedKey(key));
  const opened = (dir: string, record: KeptEnvironmentRecord): KeptEnvironment => ({
    record,
    repoDir: path.join(dir, "repo"),
    homeDir: path.join(dir, "home"),
  });
  /** Removes a folder in the background, waited for by `settled`. */
  const removeLater = (dir: string) => {
    const removal = removeTree(dir)
      .catch((error: unknown) => log?.warn({ folder: dir, error: String(error) }, "could not remove a kept environment's folder; remove it by hand"))
      .finally(() => removals.delete(removal));
    removals.add(removal);
  };
  /** Takes a folder away at once (renamed out of sight beside it) and removes it in the background. */
  const discard = (dir: string) => {
    const away = claim(dir);
    if (away) removeLater(away);
  };
  /** Renames a folder out of sight beside it; null when it is gone already. */
  const claim = (dir: string): string | null => {
    const away = path.join(path.dirname(dir), `${REMOVING}${path.basename(dir)}-${randomBytes(4).toString("hex")}`);
    try {
      fs.renameSync(dir, away);
      return away;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  };
  /**
   * Discards a kept environment that nobody holds, looking again once it is out of sight: a find places its hold before
   * it reads the record (see find), so a holder whose find read it before the rename has its marker there by now, and
   * the environment is put back. Returns whether it went (or was gone already); false when it is held.
   */
  const discardUnlessHeld = (dir: string): boolean => {
    if (isHeld(dir)) return false;
    const away = claim(dir);
    if (!away) return true;
    if (!isHeld(dir)) {
      removeLater(away);
      return true;
    }
    try {
      fs.renameSync(away, dir);
      return false;
    } catch {
      // Another environment of the key took its place meanwhile (a keep): the holder reads that one's folders.
      removeLater(away);
      return true;
    }
  };
  /** Every kept environment's record with its folder, a record that does not parse dropped with a log line. */
  const scan = (): { dir: string; record: KeptEnvironmentRecord }[] => {
    const found: { dir: string; record: KeptEnvironmentRecord }[] = [];
    for (const scope of listNames(folder)) {
      if (scope.startsWith(".")) continue;
      for (const key of listNames(path.join(folder, scope))) {
        if (key.startsWith(".")) continue;
        const dir = path.join(folder, scope, key);
        const record = readRecord(dir, key);
        if (record) found.push({ dir, record });
      }
    }
    return found;
  };
  const readRecord = (dir: string, key: string): KeptEnvironmentRecord | null => {
    const read = readKeptRecord(path.join(dir, "record.json"), key);
    if ("record" in read) return read.record;
    if (!discardUnlessHeld(dir)) return null;
    const why = "wrong" in read ? read.wrong : "it is missing";
    log?.warn({ folder: dir }, `dropped a kept environment whose record.json is not one (${why}): it is built again when next needed`);
    return null;
  };
  const writeRecord = (dir: string, record: KeptEnvironmentRecord) => {
    const temp = path.join(dir, `.record-${randomBytes(4).toString("hex")}.json`);
    fs.writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(temp, path.join(dir, "record.json"));
  };
  const matches = (record: KeptEnvironmentRecord, scope: Partial<EnvironmentScope>) =>
    (scope.repo === undefined || sameRepo(record.scope.repo, scope.repo)) &&
    (scope.installationId === undefined || record.scope.installationId === scope.installationId);
  /** Removes the least recently used environments nobody holds until the bytes kept and `incoming` are within the bound. */
  const evict = (incoming: number) => {
    const kept = scan().sort((a, b) => Date.parse(a.record.usedAt) - Date.parse(b.record.usedAt));
    let total = kept.reduce((sum, { record }) => sum + record.bytes, incoming);
    for (const { dir, record } of kept) {
      if (total <= maxBytes) break;
      if (!discardUnlessHeld(dir)) continue;
      total -= record.bytes;
      counts.evicted++;
      log?.info({ repo: record.scope.repo, key: record.key, bytes: record.bytes }, "evicted the least recently used kept environment");
    }
  };

  const warnMount = (target: string, why: string) =>
    log?.warn({ target, why }, "could not unmount an overlay a job of a process that is gone left over a kept environment; unmount it by hand");
  sweepLeftovers(folder, { claim: discard, remove: removeLater, removing: true, warn: warnMount });
  return {
    maxBytes,
    find(scope, key) {
      const dir = placeOf(scope, key);
      if (!fs.existsSync(dir)) {
        counts.misses++;
        return null;
      }
      // Held before its record is read: a process discarding it meanwhile sees the hold once it has renamed it away,
      // and puts it back (see discardUnlessHeld); one that renamed it first leaves no record here to read.
      const marker = placeHold(dir);
      held.set(dir, [...(held.get(dir) ?? []), marker]);
      // Whatever fails from here (a record unreadable for another reason than its absence, a full disk) lets the hold
      // go with the error: a hold left behind would keep the environment from eviction for the process's life.
      try {
        const miss = () => {
          dropOwnHold(dir, marker);
          counts.misses++;
          return null;
        };
        const record = readRecord(dir, key);
        if (!record) {
          miss();
          // A record that is not one is dropped now that this hold is gone (unless another holds it).
          readRecord(dir, key);
          return null;
        }
        if (!matches(record, { repo: scope.repo, installationId: scope.installationId })) return miss();
        const used = { ...record, usedAt: now().toISOString() };
        try {
          writeRecord(dir, used);
        } catch (error) {
          // Renamed away for a moment by a process discarding it, which puts it back on seeing the hold: built afresh.
          if ((error as NodeJS.ErrnoException).code === "ENOENT") return miss();
          throw error;
        }
        // Cleared by another process between the read and the write above (this hold stopped it from going): the record
        // written is taken away again, so that no later find reuses it and it goes once released.
        if (fs.existsSync(path.join(dir, CLEARED))) fs.rmSync(path.join(dir, "record.json"), { force: true });
        counts.hits++;
        return opened(dir, used);
      } catch (error) {
        dropOwnHold(dir, marker);
        throw error;
      }
    },
    release(found) {
      const dir = path.dirname(found.repoDir);
      const [marker, ...others] = held.get(dir) ?? [];
      if (marker) dropHold(marker);
      if (others.length > 0) return void held.set(dir, others);
      held.delete(dir);
      // Removed meanwhile (here, or by another process, which took its record away): it goes once nobody holds it.
      const removed = doomed.delete(dir) || !fs.existsSync(path.join(dir, "record.json"));
      if (removed && fs.existsSync(dir)) discardUnlessHeld(dir);
    },
    async keep({ scope, key, repoDir, homeDir, record }) {
      counts.builds++;
      counts.buildSeconds += record.buildSeconds;
      if (maxBytes <= 0) return null;
      const dir = placeOf(scope, key);
      // The caller's folders are its set-up state and stay still: measured first, one too big is refused uncopied.
      const bytes = (await measureTree(repoDir)) + (await measureTree(homeDir));
      if (bytes > maxBytes) {
        log?.warn({ repo: scope.repo, key, bytes, maxBytes }, "not kept: the environment alone is bigger than MAGIS_ENV_CACHE_MB");
        return null;
      }
      ownFolder(folder);
      fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
      sweepLeftovers(folder, { claim: discard, remove: removeLater, removing: false, warn: warnMount });
      const keeping = openKeepingFolder(path.dirname(dir), instance, heartbeatMs);
      try {
        await copyTree(repoDir, path.join(keeping.dir, "repo"));
        await copyTree(homeDir, path.join(keeping.dir, "home"));
        const kept: KeptEnvironmentRecord = { ...record, scope, key, bytes, usedAt: now().toISOString() };
        writeRecord(keeping.dir, kept);
        // One handed out stays where its holder copies from; this build is of the same key, so the kept one serves.
        if (isHeld(dir)) {
          const holding = readRecord(dir, key);
          if (holding) return opened(dir, holding);
          // Removed (its record gone) while a job still shows it: it goes once released, not from under that job.
          throw new Error(`the environment kept under this key was removed while a job holds it; it is kept at the next build once that job ends`);
        }
        // A sweep claims a folder by renaming it away, so the folder made here, still here, is whole: nothing else
        // writes into it, and renaming it is atomic against a sweep's rename (the later of the two finds nothing).
        if (!keeping.isOurs()) throw new SweptAway(keeping.dir);
        if (!discardUnlessHeld(dir)) {
          // Held since the look above: the one kept serves, as above.
          const holding = readRecord(dir, key);
          if (holding) return opened(dir, holding);
          throw new Error(`the environment kept under this key was removed while a job holds it; it is kept at the next build once that job ends`);
        }
        evict(bytes);
        fs.renameSync(keeping.dir, dir);
        return opened(dir, kept);
      } catch (error) {
        if (error instanceof SweptAway || keeping.isOurs()) throw error;
        throw new SweptAway(keeping.dir, error);
      } finally {
        keeping.close();
        await removeTree(keeping.dir);
      }
    },
    list(scope = {}) {
      const records = scan().map(({ record }) => record);
      return records.filter((record) => matches(record, scope)).sort((a, b) => Date.parse(b.usedAt) - Date.parse(a.usedAt));
    },
    remove(scope) {
      let removed = 0;
      for (const { dir, record } of scan()) {
        if (!matches(record, scope)) continue;
        removed++;
        if (discardUnlessHeld(dir)) continue;
        // Its holder may be copying from it: no more finds, and it goes when released. The mark comes first: a find
        // that read the record before and writes it after the removal sees it (see find).
        fs.writeFileSync(path.join(dir, CLEARED), "", { mode: 0o600 });
        fs.rmSync(path.join(dir, "record.json"), { force: true });
        doomed.add(dir);
      }
      return removed;
    },
    warn(obj, msg) {
      log?.warn(obj, msg);
    },
    async settled() {
      while (removals.size > 0) await Promise.all(removals);
    },
    stats() {
      const records = scan();
      return { ...counts, bytes: records.reduce((sum, { record }) => sum + record.bytes, 0), kept: records.length };
    },
  };
}

/** The folder a scope's environments are in: `owner+name` for a GitHub repository, `local-<hash>` for a folder. */
export function scopeFolder(repo: string): string {
  const hash = () => createHash("sha256").update(repo).digest("hex").slice(0, 16);
  if (path.isAbsolute(repo)) return `local-${hash()}`;
  const name = repo.toLowerCase().replace("/", "+");
  return SAFE_SCOPE.test(name) ? name : `repo-${hash()}`;
}

/** GitHub's names are the same in any case; a local folder's are not. */
function sameRepo(a: string, b: string): boolean {
  return path.isAbsolute(a) || path.isAbsolute(b) ? a === b : a.toLowerCase() === b.toLowerCase();
}

function checkedKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`'${key.slice(0, 80)}' is not an environment key (hex, from environmentKey): nothing is kept under it`);
  return key;
}

/** Makes the folder (0700) or checks it is the bot's own: a folder another user made first, or a link, is refused. */
function ownFolder(folder: string): void {
  if (!fs.existsSync(folder)) fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stat = fs.lstatSync(folder);
  const uid = process.getuid?.();
  if (!stat.isDirectory()) throw new Error(`the kept environments' folder ${folder} is not a folder (a link?): set MAGIS_ENV_DIR to a folder of the bot's own`);
  if (uid !== undefined && stat.uid !== uid) {
    throw new Error(
      `the kept environments' folder ${folder} belongs to user ${stat.uid}, not to the bot (${uid}): set MAGIS_ENV_DIR to a folder of the bot's own`,
    );
  }
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(folder, 0o700);
}

/** The error of a keep whose half-kept folder a sweep took (it had gone untouched for an hour: its keeper stalled). */
class SweptAway extends Error {
  constructor(dir: string, cause?: unknown) {
    super(
      `the half-kept copy ${dir} was taken by a sweep while it was being copied (untouched for over an hour: was this worker stalled?); it is kept at the next build`,
      cause === undefined ? undefined : { cause },
    );
  }
}

function listNames(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
