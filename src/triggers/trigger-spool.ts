import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileKind } from "../lib/file-kind.js";
import type { NewTrigger } from "../store/triggers.js";
import { spoolFolderProblem } from "./check-spool-folder.js";
import { readSpoolRecord, writeSpoolRecord } from "./spool-record.js";

/** How much the spool may hold: files (deliveries) and bytes, and the bytes of one file. */
export interface SpoolLimits {
  maxFiles: number;
  maxBytes: number;
  /** A file larger than this is not one the spool wrote (GitHub caps a payload at 25 MB): it is set aside unread. */
  maxFileBytes: number;
}

/** About an hour of a busy installation's deliveries, and four of GitHub's largest. */
export const DEFAULT_SPOOL_LIMITS: SpoolLimits = { maxFiles: 2000, maxBytes: 100 * 1024 * 1024, maxFileBytes: 26 * 1024 * 1024 };

/**
 * A spooled file read back: the delivery it holds, why it was set aside in `rejected/` instead, or that it is gone (a
 * process sharing the folder replayed it since the listing).
 */
export type SpoolEntry = { file: string; trigger: NewTrigger } | { file: string; setAside: string } | { file: string; gone: true };

/** Where files that hold no delivery of this spool's go, inside the spool folder: kept for a look, never replayed. */
export const REJECTED = "rejected";

/**
 * A bounded journal of deliveries the store could not take (PostgreSQL down for a moment): each is written to a file of
 * its own (whole, then renamed into place, then synced), the webhook is answered, and the delivery is recorded in the
 * store once it answers again. GitHub does not resend a delivery it saw answered with a 5xx, so this is what keeps a
 * short outage from losing triggers. Processes may share the folder: the store records a delivery once. What it
 * replays queues jobs, so it reads only a folder of the bot's own (see spoolFolderProblem) and, in it, only regular
 * files of the bot's own that hold a record of its schema.
 */
export class TriggerSpool {
  private readonly limits: SpoolLimits;

  constructor(
    readonly dir: string,
    limits: Partial<SpoolLimits> = {},
  ) {
    this.limits = { ...DEFAULT_SPOOL_LIMITS, ...limits };
  }

  /** Why the folder may not be used (a link, another user's, writable by others), or undefined. */
  folderProblem(): string | undefined {
    return spoolFolderProblem(this.dir);
  }

  /** Writes `trigger` to the spool; undefined once it is kept, else why it was not (full, a folder it may not use, a failed write). */
  add(trigger: NewTrigger): string | undefined {
    try {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const problem = this.folderProblem();
      if (problem) return problem;
      const text = writeSpoolRecord(trigger);
      const { files, bytes } = this.size();
      if (files + 1 > this.limits.maxFiles || bytes + text.length > this.limits.maxBytes) {
        return `the spool is full (${files} deliveries, ${bytes} bytes)`;
      }
      const name = `${String(trigger.receivedAt).padStart(15, "0")}-${crypto.createHash("sha256").update(trigger.delivery).digest("hex").slice(0, 16)}.json`;
      const partial = path.join(this.dir, `.${name}.part`);
      fs.rmSync(partial, { force: true });
      // wx: made here, never through something already standing at that name.
      const fd = fs.openSync(partial, "wx", 0o600);
      try {
        fs.writeSync(fd, text);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(partial, path.join(this.dir, name));
      return undefined;
    } catch (error) {
      return `it could not be written to ${this.dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
  }

  /** The spooled files, oldest first (none when the folder may not be used: see folderProblem). */
  files(): string[] {
    if (this.folderProblem()) return [];
    return this.names().map((name) => path.join(this.dir, name));
  }

  /**
   * The delivery a spooled file holds. A file that holds none of this spool's (not a regular file of the bot's user, too
   * large, not JSON, not a record's shape) is moved to `rejected/`, and the entry says why; it is never read again.
   */
  read(file: string): SpoolEntry {
    const read = this.readFile(file);
    if ("trigger" in read) return { file, trigger: read.trigger };
    if ("gone" in read) return { file, gone: true };
    return { file, setAside: `${read.why}${this.setAside(file)}` };
  }

  /** Removes a replayed delivery's file. */
  remove(file: string): void {
    fs.rmSync(file, { force: true });
  }

  /** How many deliveries it holds now. */
  get depth(): number {
    return this.size().files;
  }

  private readFile(file: string): { trigger: NewTrigger } | { why: string } | { gone: true } {
    let fd: number;
    try {
      // O_NOFOLLOW: a link is not followed; O_NONBLOCK: a FIFO does not wait for a writer (fstat then refuses it).
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return { gone: true };
      return { why: code === "ELOOP" ? "it is a link" : `it cannot be opened (${code ?? String(error)})` };
    }
    try {
      const stat = fs.fstatSync(fd);
      const uid = process.getuid?.();
      if (!stat.isFile()) return { why: `it is not a regular file (${fileKind(stat)})` };
      if (uid !== undefined && stat.uid !== uid) return { why: `it belongs to uid ${stat.uid}, not to the bot's user (uid ${uid})` };
      if (stat.nlink !== 1) return { why: `it has ${stat.nlink} links` };
      if (stat.size > this.limits.maxFileBytes) return { why: `it holds ${stat.size} bytes, more than the ${this.limits.maxFileBytes} a delivery may` };
      // One byte more than fstat said, to see it grow: then it is not a file the spool wrote whole.
      const bytes = Buffer.alloc(stat.size + 1);
      let length = 0;
      while (length < bytes.length) {
        const read = fs.readSync(fd, bytes, length, bytes.length - length, length);
        if (read === 0) break;
        length += read;
      }
      if (length > stat.size) return { why: "it was still being written" };
      return readSpoolRecord(bytes.subarray(0, length).toString("utf8"));
    } finally {
      fs.closeSync(fd);
    }
  }

  // Into rejected/, named by when, so that no two collide; failing that, renamed where it is, out of the *.json names.
  // Says where it went when that is not rejected/.
  private setAside(file: string): string {
    const rejected = path.join(this.dir, REJECTED);
    try {
      fs.mkdirSync(rejected, { mode: 0o700 });
    } catch {
      // There already, or it cannot be made: the rename says which.
    }
    try {
      // Not into a rejected/ that is itself a link or another user's.
      if (spoolFolderProblem(rejected)) throw new Error("rejected/ may not be used");
      fs.renameSync(file, path.join(rejected, `${Date.now()}-${path.basename(file)}`));
      return "";
    } catch {
      try {
        fs.renameSync(file, `${file}.rejected`);
        return `; renamed ${path.basename(file)}.rejected`;
      } catch (error) {
        return `; it could not be moved aside (${(error as NodeJS.ErrnoException).code ?? String(error)}), so it is read again at each replay`;
      }
    }
  }

  private names(): string[] {
    try {
      return fs
        .readdirSync(this.dir)
        .filter((name) => name.endsWith(".json"))
        .sort();
    } catch {
      return [];
    }
  }

  private size(): { files: number; bytes: number } {
    let files = 0;
    let bytes = 0;
    for (const name of this.names()) {
      files++;
      // lstat: a link counts as itself, and nothing is opened.
      bytes += fs.lstatSync(path.join(this.dir, name), { throwIfNoEntry: false })?.size ?? 0;
    }
    return { files, bytes };
  }
}
