import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { NewTrigger } from "../store/triggers.js";

/** How much the spool may hold: files (deliveries) and bytes. */
export interface SpoolLimits {
  maxFiles: number;
  maxBytes: number;
}

/** About an hour of a busy installation's deliveries, and four of GitHub's largest. */
export const DEFAULT_SPOOL_LIMITS: SpoolLimits = { maxFiles: 2000, maxBytes: 100 * 1024 * 1024 };

/**
 * A bounded journal of deliveries the store could not take (PostgreSQL down for a moment): each is written to a file of
 * its own (whole, then renamed into place, then synced), the webhook is answered, and the delivery is recorded in the
 * store once it answers again. GitHub does not resend a delivery it saw answered with a 5xx, so this is what keeps a
 * short outage from losing triggers. Processes may share the folder: the store records a delivery once.
 */
export class TriggerSpool {
  constructor(
    readonly dir: string,
    private readonly limits: SpoolLimits = DEFAULT_SPOOL_LIMITS,
  ) {}

  /** Writes `trigger` to the spool; false when it is full (or cannot be written), and then nothing is kept. */
  add(trigger: NewTrigger): boolean {
    try {
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      const text = JSON.stringify(trigger);
      const { files, bytes } = this.size();
      if (files + 1 > this.limits.maxFiles || bytes + text.length > this.limits.maxBytes) return false;
      const name = `${String(trigger.receivedAt).padStart(15, "0")}-${crypto.createHash("sha256").update(trigger.delivery).digest("hex").slice(0, 16)}.json`;
      const partial = path.join(this.dir, `.${name}.part`);
      const fd = fs.openSync(partial, "w", 0o600);
      try {
        fs.writeSync(fd, text);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(partial, path.join(this.dir, name));
      return true;
    } catch {
      return false;
    }
  }

  /** The spooled deliveries, oldest first, each with the file to remove once the store has it. */
  list(): { trigger: NewTrigger; file: string }[] {
    let names: string[];
    try {
      names = fs
        .readdirSync(this.dir)
        .filter((name) => name.endsWith(".json"))
        .sort();
    } catch {
      return [];
    }
    return names.flatMap((name) => {
      const file = path.join(this.dir, name);
      try {
        return [{ trigger: JSON.parse(fs.readFileSync(file, "utf8")) as NewTrigger, file }];
      } catch {
        // Not one this spool wrote whole: set aside, not replayed again and again.
        fs.renameSync(file, `${file}.unreadable`);
        return [];
      }
    });
  }

  /** Removes a replayed delivery's file. */
  remove(file: string): void {
    fs.rmSync(file, { force: true });
  }

  /** How many deliveries it holds now. */
  get depth(): number {
    return this.size().files;
  }

  private size(): { files: number; bytes: number } {
    let files = 0;
    let bytes = 0;
    try {
      for (const name of fs.readdirSync(this.dir)) {
        if (!name.endsWith(".json")) continue;
        files++;
        bytes += fs.statSync(path.join(this.dir, name)).size;
      }
    } catch {
      // no folder yet
    }
    return { files, bytes };
  }
}
