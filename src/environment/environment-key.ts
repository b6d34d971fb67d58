import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import type { Sandbox } from "../sandbox/sandbox.js";

/** What a kept environment is kept under: what, changed, makes one built before stale. */
export interface EnvironmentKeyParts {
  /** The setup commands, in order (their names are for the report, not the key). Maintenance is not in the key: reuse runs it. */
  setup: readonly string[];
  /** The non-secret variables every command gets. */
  env: Readonly<Record<string, string>>;
  /** The key files' git blob ids, by path relative to the root (see hashKeyFiles). */
  keyFiles: Readonly<Record<string, string>>;
  /** What the commands ran in: the sandbox's kind and its base (see sandboxBase). */
  sandbox: { kind: string; base: string };
  /**
   * The hosts the setup could reach (the operator's allowed ones, sorted, and the repository's narrowing list), none
   * when it had no network: a setup that passed offline (a fallback, `|| true`) is not the one made with the network.
   */
  network?: { allowed: readonly string[]; narrowed: readonly string[] | null };
}

/** The key (sha256, hex) of an environment built from these parts: the same parts, in any key order, give the same key. */
export function environmentKey(parts: EnvironmentKeyParts): string {
  return createHash("sha256").update(canonicalJson(parts)).digest("hex");
}

/**
 * What the system under a sandbox's commands is, as far as a kept environment depends on it: for bubblewrap and no
 * sandbox, the host's /etc/os-release and machine (a virtualenv made on Debian 12's Python does not run on 13's); for
 * a container, its description, which names the image.
 */
export function sandboxBase(sandbox: Pick<Sandbox, "kind" | "description">): string {
  if (sandbox.kind === "container") return sandbox.description;
  let release = "";
  try {
    release = fs.readFileSync("/etc/os-release", "utf8");
  } catch {
    // A system without the file (a minimal container) is told apart by its machine alone.
  }
  return `${os.machine()} ${createHash("sha256").update(release).digest("hex").slice(0, 16)}`;
}

/** JSON with every object's keys sorted, so that the text depends on the values alone. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
