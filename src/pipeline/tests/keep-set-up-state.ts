import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * The state a copy was in when its setup ended, kept so that every run starts from it: what a reproduction, a candidate
 * or a test run changes in the copy (a test file rewritten to `exit 0`, a link planted) is gone before the next run.
 */
export interface SetUpState {
  /**
   * Puts the copy back as the setup left it: what a run added is removed, what it changed or removed is made anew from
   * the kept copy. Throws when that cannot be done (the copy can then no longer be trusted).
   */
  restore(): void;
  /** Resolves once a run's writes can no longer share a change time with what was recorded: await it before each run. */
  settled(): Promise<void>;
}

/** A set-up state kept by walking the copy, whose restore says what it did. */
export interface WalkedSetUpState extends SetUpState {
  restore(): RestoreCount;
}

/** What a restore did. */
export interface RestoreCount {
  /** Entries made anew: changed or removed by the run. */
  restored: number;
  /** Entries the run added, removed. */
  removed: number;
}

type Kind = "folder" | "file" | "link";

/** One entry as the setup left it. An unchanged entry has the same inode and change time, which no command can set. */
interface Entry {
  kind: Kind;
  mode: number;
  uid: number;
  gid: number;
  size: bigint;
  ino: bigint;
  ctimeNs: bigint;
  mtimeNs: bigint;
  /** A folder's entries, by name. */
  names?: string[];
}

/**
 * File times come from the kernel's coarse clock (a tick of 1 to 10 ms): a write in the same tick as the look that
 * recorded an entry would keep its change time. Runs start this long after the last entry was recorded.
 */
const TICK_NS = 20_000_000n;

/** How the set-up state is kept. */
export interface KeepOptions {
  /**
   * A file elsewhere, never written by anyone, known to hold the same bytes as the copy's file at `relative` (a kept
   * environment's file the copy was made from and no command changed since): the kept copy links to it rather than
   * copying it again. Null: copy.
   */
  sameAs?: (relative: string, stat: fs.BigIntStats) => string | null;
}

/**
 * Records the copy at `dir` as its setup left it and keeps a copy of its files in `keep` (a new folder no command sees).
 * Folders, regular files and links are kept; anything else the setup left (a FIFO, a socket) is removed, so the first
 * run sees what every later run sees.
 */
export function keepSetUpState(dir: string, keep: string, options: KeepOptions = {}): WalkedSetUpState {
  const entries = new Map<string, Entry>();
  let settledAt = 0n;
  const record = (relative: string, stat: fs.BigIntStats, kind: Kind, names?: string[]) => {
    entries.set(relative, {
      kind,
      mode: Number(stat.mode & 0o7777n),
      uid: Number(stat.uid),
      gid: Number(stat.gid),
      size: stat.size,
      ino: stat.ino,
      ctimeNs: stat.ctimeNs,
      mtimeNs: stat.mtimeNs,
      ...(names ? { names } : {}),
    });
    if (stat.ctimeNs + TICK_NS > settledAt) settledAt = stat.ctimeNs + TICK_NS;
  };

  const take = (relative: string) => {
    const from = path.join(dir, relative);
    const to = path.join(keep, relative);
    const stat = fs.lstatSync(from, { bigint: true });
    if (stat.isDirectory()) {
      fs.mkdirSync(to, { mode: 0o700 });
      const names = fs.readdirSync(from).sort();
      const kept = names.filter((name) => take(path.join(relative, name)));
      const after = fs.lstatSync(from, { bigint: true });
      keepFolderOwner(to, after);
      record(relative, after, "folder", kept);
    } else if (stat.isFile()) {
      const same = options.sameAs?.(relative, stat);
      if (!same || !linked(same, to)) {
        fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
        keepOwner(to, stat);
      }
      record(relative, stat, "file");
    } else if (stat.isSymbolicLink()) {
      fs.symlinkSync(fs.readlinkSync(from), to);
      keepOwner(to, stat);
      record(relative, stat, "link");
    } else {
      fs.rmSync(from, { force: true });
      return false;
    }
    return true;
  };
  fs.mkdirSync(keep, { mode: 0o700 });
  const names = fs.readdirSync(dir).sort();
  const kept = names.filter((name) => take(name));
  const top = fs.lstatSync(dir, { bigint: true });
  keepFolderOwner(keep, top);
  record("", top, "folder", kept);

  /** Makes an entry (and all below it) anew from the kept copy, with the setup's owner and mode. */
  const put = (relative: string): number => {
    const entry = entries.get(relative)!;
    const from = path.join(keep, relative);
    const to = path.join(dir, relative);
    let count = 1;
    if (entry.kind === "folder") fs.mkdirSync(to);
    else if (entry.kind === "file") fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
    else fs.symlinkSync(fs.readlinkSync(from), to);
    fs.lchownSync(to, entry.uid, entry.gid);
    if (entry.kind !== "link") fs.chmodSync(to, entry.mode);
    if (entry.kind === "folder") for (const name of entry.names!) count += put(path.join(relative, name));
    record(relative, fs.lstatSync(to, { bigint: true }), entry.kind, entry.names);
    return count;
  };

  return {
    async settled() {
      const wait = settledAt - BigInt(Date.now()) * 1_000_000n;
      if (wait > 0n) await sleep(Number(wait / 1_000_000n) + 1);
    },
    restore() {
      const count: RestoreCount = { restored: 0, removed: 0 };
      const visit = (relative: string) => {
        const entry = entries.get(relative)!;
        const at = path.join(dir, relative);
        const stat = fs.lstatSync(at, { bigint: true, throwIfNoEntry: false });
        if (!stat) {
          count.restored += put(relative);
          return;
        }
        const kind: Kind | null = stat.isDirectory() ? "folder" : stat.isFile() ? "file" : stat.isSymbolicLink() ? "link" : null;
        if (kind !== entry.kind || (kind !== "folder" && !unchanged(stat, entry))) {
          fs.rmSync(at, { recursive: true, force: true });
          count.restored += put(relative);
          return;
        }
        if (kind !== "folder") return;
        if (!sameOwnerAndMode(stat, entry)) {
          fs.lchownSync(at, entry.uid, entry.gid);
          fs.chmodSync(at, entry.mode);
        }
        const wanted = new Set(entry.names);
        for (const name of fs.readdirSync(at)) {
          if (wanted.has(name)) continue;
          fs.rmSync(path.join(at, name), { recursive: true, force: true });
          count.removed++;
        }
        for (const name of entry.names!) visit(path.join(relative, name));
        record(relative, fs.lstatSync(at, { bigint: true }), "folder", entry.names);
      };
      visit("");
      return count;
    },
  };
}

/**
 * Gives a kept file or link its owner in the copy, as root (the commands' user owns what they made): a kept environment
 * is made from this state, and an overlay over it whose files the sandbox had to give to that user again would copy
 * each one up. Under `keep`'s folders (0700, the bot's) no command reaches them. A file others may not read stays the
 * bot's: the language servers read this state as root without capabilities. Otherwise every entry is the bot's anyway.
 */
function keepOwner(to: string, stat: fs.BigIntStats): void {
  if (process.getuid?.() !== 0 || (Number(stat.mode) & 0o004) === 0) return;
  if (Number(stat.uid) !== 0 || Number(stat.gid) !== 0) fs.lchownSync(to, Number(stat.uid), Number(stat.gid));
}

/**
 * Gives a kept folder its owner and mode in the copy, as root, when others may read and enter it (the language servers,
 * root without capabilities, still can): an overlay over a kept environment made from this state then need not give
 * each folder to the commands' user again, which would copy every folder up. One others may not enter stays the bot's
 * (0700). The folder is given away once filled: root fills its own.
 */
function keepFolderOwner(to: string, stat: fs.BigIntStats): void {
  const mode = Number(stat.mode & 0o7777n);
  if (process.getuid?.() !== 0 || (mode & 0o005) !== 0o005) return;
  if (Number(stat.uid) !== 0 || Number(stat.gid) !== 0) fs.lchownSync(to, Number(stat.uid), Number(stat.gid));
  fs.chmodSync(to, mode);
}

/** Links `to` to `same`; false where it cannot (another file system, a link the kernel refuses to this user). */
function linked(same: string, to: string): boolean {
  try {
    fs.linkSync(same, to);
    return true;
  } catch {
    return false;
  }
}

function sameOwnerAndMode(stat: fs.BigIntStats, entry: Entry): boolean {
  return Number(stat.mode & 0o7777n) === entry.mode && Number(stat.uid) === entry.uid && Number(stat.gid) === entry.gid;
}

function unchanged(stat: fs.BigIntStats, entry: Entry): boolean {
  return (
    sameOwnerAndMode(stat, entry) && stat.ino === entry.ino && stat.size === entry.size && stat.ctimeNs === entry.ctimeNs && stat.mtimeNs === entry.mtimeNs
  );
}
