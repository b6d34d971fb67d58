import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { gitEnvBelow } from "./git-env-below.js";
import { commitStampOf } from "./prepare-checkouts.js";

/**
 * The commit a checkout holds: HEAD of its own `.git`, else the stamp `--prepare-from` wrote beside it; null when
 * neither says (a plain tree made some other way).
 */
export function readCheckoutCommit(checkout: string): string | null {
  if (fs.existsSync(path.join(checkout, ".git"))) {
    try {
      return execFileSync("git", ["rev-parse", "HEAD"], {
        cwd: checkout,
        env: gitEnvBelow(checkout),
        stdio: ["ignore", "pipe", "ignore"],
      })
        .toString()
        .trim();
    } catch {
      return null;
    }
  }
  const stamp = commitStampOf(checkout);
  return fs.existsSync(stamp) ? fs.readFileSync(stamp, "utf8").trim() : null;
}
