import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");
// Held while one test process builds; vitest runs two files at once, and each may find dist/ stale.
const LOCK = path.join(ROOT, "dist.building");
// A lock older than this was left by a build that was killed.
const STALE_LOCK_MS = 170_000;

/**
 * Builds dist/, which `node bin/magis.js` runs, unless it is newer than every source file (`npm ci` builds it through
 * `prepare`, so CI does not build it twice). When two test files want it at once, one builds and the other waits for
 * it, rather than starting `node` on modules the other build is still writing.
 */
export function buildDist(): void {
  // While another process builds, its first files already look fresh: wait for it instead.
  if (!fs.existsSync(LOCK) && distIsFresh()) return;
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const since = lockAge();
    if (since !== undefined && since > STALE_LOCK_MS) fs.rmSync(LOCK, { recursive: true, force: true });
    else sleep(200);
  }
  try {
    // Built by the other process while this one waited.
    if (!distIsFresh()) execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "pipe" });
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

function lockAge(): number | undefined {
  try {
    return Date.now() - fs.statSync(LOCK).mtimeMs;
  } catch {
    return undefined;
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function distIsFresh(): boolean {
  const built = path.join(ROOT, "dist", "cli.js");
  if (!fs.existsSync(built)) return false;
  const builtAt = fs.statSync(built).mtimeMs;
  const sources = fs.readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".ts"));
  const inputs = [...sources.map((name) => path.join(ROOT, "src", name)), path.join(ROOT, "tsconfig.build.json"), path.join(ROOT, "tsconfig.json")];
  return inputs.every((file) => fs.statSync(file).mtimeMs <= builtAt);
}
