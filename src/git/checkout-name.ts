import crypto from "node:crypto";
import os from "node:os";

/** What a folder named for its owner holds: a checkout (`magis-clone-`), or a language server's temp folder. */
export type OwnedFolder = "clone" | "language-server";

const KINDS: readonly OwnedFolder[] = ["clone", "language-server"];

/** The process that made a checkout: its pid, a tag of its machine, and a tag of that run of the process. */
export interface CheckoutOwner {
  pid: number;
  host: string;
  run: string;
}

/**
 * This process. The machine tag keeps a work folder shared across machines or containers (each with its own pids)
 * from being judged by the wrong pids; the run tag tells this process from an earlier one that had the same pid,
 * as an app restarted in its container usually does.
 */
export const THIS_PROCESS: CheckoutOwner = {
  pid: process.pid,
  host: crypto.createHash("sha256").update(os.hostname()).digest("hex").slice(0, 8),
  run: crypto.randomBytes(4).toString("hex"),
};

/** The folder-name prefix of the checkouts (or other folders of `kind`) `owner` makes (mkdtemp appends six random characters). */
export function checkoutPrefix(owner: CheckoutOwner = THIS_PROCESS, kind: OwnedFolder = "clone"): string {
  return `magis-${kind}-${owner.pid}-${owner.host}-${owner.run}-`;
}

/**
 * Whether a folder name is a MAGIS checkout or language server's temp folder, of this version (named by its owner) or
 * of an earlier one (`magis-clone-XXXXXX`).
 */
export function isCheckoutName(name: string): boolean {
  return KINDS.some((kind) => name.startsWith(`magis-${kind}-`));
}

/** The owner a checkout's (or language server's) folder name records, or null for a name of an earlier version, which recorded none. */
export function checkoutOwner(name: string): CheckoutOwner | null {
  const match = /^magis-(?:clone|language-server)-(\d+)-([0-9a-f]{8})-([0-9a-f]{8})-[^-]+$/.exec(name);
  return match ? { pid: Number(match[1]), host: match[2]!, run: match[3]! } : null;
}
