import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * Builds dist/, which `node bin/magis.js` runs, unless it is newer than every source file (`npm ci` builds it through
 * `prepare`, so CI does not build it twice, nor two test files at once).
 */
export function buildDist(): void {
  if (distIsFresh()) return;
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "pipe" });
}

function distIsFresh(): boolean {
  const built = path.join(ROOT, "dist", "cli.js");
  if (!fs.existsSync(built)) return false;
  const builtAt = fs.statSync(built).mtimeMs;
  const sources = fs.readdirSync(path.join(ROOT, "src"), { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".ts"));
  const inputs = [...sources.map((name) => path.join(ROOT, "src", name)), path.join(ROOT, "tsconfig.build.json"), path.join(ROOT, "tsconfig.json")];
  return inputs.every((file) => fs.statSync(file).mtimeMs <= builtAt);
}
