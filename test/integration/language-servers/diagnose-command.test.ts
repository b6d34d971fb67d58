import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../../src/cli.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const PRICES = "def total(items, discount=0):\n    return sum(items) - discount\n";
const CART = "from prices import total\n\n\ndef checkout(items):\n    return total(items)\n";

function patchOf(line: string): string {
  return ["--- a/prices.py", "+++ b/prices.py", "@@ -1,2 +1,2 @@", " def total(items, discount=0):", "-    return sum(items) - discount", `+${line}`, ""].join(
    "\n",
  );
}

/** How a run is set up: the checkout a commit (so that a store is opened for the cache), the store's settings. */
interface Setup {
  committed?: boolean;
  /** Settings beside PATH; `WORK` in a value is the run's temporary folder. */
  env?: Record<string, string>;
}

async function diagnose(patch: string, ...flags: string[]) {
  return diagnoseIn({}, patch, ...flags);
}

async function diagnoseIn(setup: Setup, patch: string, ...flags: string[]) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-diagnose-"));
  dirs.push(work);
  fs.mkdirSync(path.join(work, "repo"));
  fs.writeFileSync(path.join(work, "repo/prices.py"), PRICES);
  fs.writeFileSync(path.join(work, "repo/cart.py"), CART);
  fs.writeFileSync(path.join(work, "change.diff"), patch);
  if (setup.committed) {
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: path.join(work, "repo") });
    git("init", "-q");
    git("add", ".");
    git("commit", "-q", "-m", "prices and cart");
  }
  const env = Object.fromEntries(Object.entries(setup.env ?? {}).map(([name, value]) => [name, value.replace("WORK", work)]));
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(["diagnose", "--repo", "repo", "--patch", "change.diff", ...flags], {
    stdout: (t) => stdout.push(t),
    stderr: (t) => stderr.push(t),
    env: { PATH: process.env.PATH, HOME: work, XDG_CACHE_HOME: path.join(work, "cache"), ...env },
    cwd: work,
  });
  expect(fs.readFileSync(path.join(work, "repo/prices.py"), "utf8")).toBe(PRICES);
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
}

describe("magis diagnose", () => {
  it("prints the errors a patch adds and exits 1 when one refuses it", async () => {
    const run = await diagnose(patchOf("    return summ(items) - discount"));
    expect(run).toEqual({
      code: 1,
      stdout: 'prices.py: 1 error added, 1 refusing\n  line 2, column 12: "summ" is not defined (reportUndefinedVariable) — refuses\n',
      stderr: "",
    });
  });

  it("exits 0 when the patch adds no refusing error, and says so as JSON with --json", async () => {
    const run = await diagnose(patchOf("    return sum(items) - 2 * discount"), "--json");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ files: [{ path: "prices.py", checked: true, added: [] }], refused: false });
  });

  it("reads each file of the patch with the others changed: a caller fitting a changed signature passes", async () => {
    const signature = [
      "--- a/prices.py",
      "+++ b/prices.py",
      "@@ -1,2 +1,2 @@",
      "-def total(items, discount=0):",
      "-    return sum(items) - discount",
      "+def total(items, rate, discount=0):",
      "+    return sum(items) * (1 + rate) - discount",
    ];
    const caller = ["--- a/cart.py", "+++ b/cart.py", "@@ -5 +5 @@", "-    return total(items)", "+    return total(items, 0.2, 5)", ""];
    expect(await diagnose([...signature, ...caller].join("\n"))).toEqual({
      code: 0,
      stdout: "prices.py: no errors added\ncart.py: no errors added\n",
      stderr: "",
    });
    // Alone, the caller has one argument too many for the untouched total().
    const alone = await diagnose(caller.join("\n"));
    expect(alone.code).toBe(1);
    expect(alone.stdout).toContain("Expected 2 positional arguments (reportCallIssue) — refuses");
  });

  it("says what is wrong with a patch that does not apply", async () => {
    const run = await diagnose(patchOf("x").replace(" def total(", " def totals("));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("magis diagnose: --patch change.diff does not apply to prices.py in --repo (its context lines differ)");
  });

  // The cache only saves a later run time: a store that does not open is said once, and the check runs without it.
  it("checks without the cache, after one warning, when the store does not open", async () => {
    const expected = 'prices.py: 1 error added, 1 refusing\n  line 2, column 12: "summ" is not defined (reportUndefinedVariable) — refuses\n';
    const patch = patchOf("    return summ(items) - discount");
    const cached = await diagnoseIn({ committed: true, env: { MAGIS_DB: "WORK/store/magis.db" } }, patch);
    expect(cached).toEqual({ code: 1, stdout: expected, stderr: "" });
    const stores = {
      "an unwritable MAGIS_DB": { MAGIS_DB: "WORK/change.diff/magis.db" },
      "an unreachable PostgreSQL": { DATABASE_URL: "postgres://magis:not-the-password-9f3@127.0.0.1:1/magis" },
      "a bad setting": { DATABASE_URL: "postgres://127.0.0.1/magis", MAGIS_DB_POOL_SIZE: "many" },
    };
    for (const [what, env] of Object.entries(stores)) {
      const run = await diagnoseIn({ committed: true, env }, patch);
      expect({ code: run.code, stdout: run.stdout }, what).toEqual({ code: 1, stdout: expected });
      const lines = run.stderr.trimEnd().split("\n");
      expect(lines, `${what}: ${run.stderr}`).toHaveLength(2);
      expect(lines[0], what).toMatch(
        /^magis diagnose: warning: the diagnostics cache did not open, so this check runs without it and keeps nothing for a later run: \S/,
      );
      expect(lines[1], what).toContain("fix DATABASE_URL");
      expect(run.stderr, what).not.toContain("not-the-password-9f3");
    }
  });
});
