import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli.js";
import type { CliIo } from "../../../src/cli/io.js";
import { keepWindow, type HistoryWindow } from "../../../src/workspace/commit-history.js";
import { parseGitLog, readLocalHistory } from "../../../src/workspace/read-local-history.js";
import { gitEnv } from "../../support/git-server.js";

let dir: string;
let repo: string;
const DAY = 24 * 3600;
const NOW = 1_750_000_000;
const window: HistoryWindow = { months: 12, maxCommits: 100 };

/** Commits with the real git, at a committer and author time `daysAgo` days before NOW. */
function commitAt(daysAgo: number, message: string, write: Record<string, string | null>): void {
  for (const [file, text] of Object.entries(write)) {
    const at = path.join(repo, file);
    if (text === null) fs.rmSync(at);
    else {
      fs.mkdirSync(path.dirname(at), { recursive: true });
      fs.writeFileSync(at, text);
    }
  }
  const date = `@${NOW - daysAgo * DAY} +0000`;
  const env = { ...gitEnv(), GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  execFileSync("git", ["add", "-A"], { cwd: repo, env });
  execFileSync("git", ["commit", "-q", "-m", message], { cwd: repo, env });
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-history-"));
  repo = path.join(dir, "repo");
  fs.mkdirSync(repo);
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repo, env: gitEnv() });
  commitAt(800, "Start the shop", { "shop/cart.py": "class Cart:\n    pass\n", "shop/money.py": "def to_minor(v):\n    return int(v * 100)\n" });
  commitAt(500, "Old: rounding of totals", { "shop/money.py": "def to_minor(v):\n    return round(v * 100)\n" });
  commitAt(90, "Fix rounding of the cart total\n\nThe last cent was lost.\n\nCo-authored-by: A <a@example.com>", { "shop/money.py": "def to_minor(v):\n    return round(v * 100, 0)\n", "docs/notes for ä.md": "notes\n" });
  commitAt(60, "Move shipping", { "shop/ship.py": "def ship():\n    pass\n" });
  commitAt(30, "Rename shipping", { "shop/ship.py": null, "shop/shipping.py": "def ship():\n    pass\n" });
  execFileSync("git", ["checkout", "-q", "-b", "side"], { cwd: repo, env: gitEnv() });
  commitAt(20, "Side change", { "shop/side.py": "x = 1\n" });
  execFileSync("git", ["checkout", "-q", "main"], { cwd: repo, env: gitEnv() });
  commitAt(15, "Main change", { "shop/cart.py": "class Cart:\n    items = []\n" });
  const date = `@${NOW - 10 * DAY} +0000`;
  execFileSync("git", ["merge", "-q", "--no-ff", "-m", "Merge side", "side"], { cwd: repo, env: { ...gitEnv(), GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
  fs.writeFileSync(path.join(dir, "issue.md"), "# The cart total loses a cent\n\nThe total of three items is one cent short after rounding.\n");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("readLocalHistory", () => {
  it("reads the commits within the window of HEAD, newest first, merges and the root commit left out, renames as a deletion and an addition", async () => {
    const commits = await readLocalHistory({ cwd: repo }, window);
    expect(commits.map((c) => c.message.split("\n")[0])).toEqual(["Main change", "Side change", "Rename shipping", "Move shipping", "Fix rounding of the cart total"]);
    expect(commits[2]!.files.sort()).toEqual(["shop/ship.py", "shop/shipping.py"]);
    expect(commits[4]!.files.sort()).toEqual(["docs/notes for ä.md", "shop/money.py"]);
    expect(commits[4]!.message).toBe("Fix rounding of the cart total\n\nThe last cent was lost.\n\nCo-authored-by: A <a@example.com>");
    expect(commits[4]!.time).toBe(NOW - 90 * DAY);
    expect(commits.every((c) => /^[0-9a-f]{40}$/.test(c.oid))).toBe(true);
  });

  it("reads the same from a bare mirror at a given commit, and keeps at most maxCommits", async () => {
    const bare = path.join(dir, "mirror.git");
    execFileSync("git", ["clone", "-q", "--bare", repo, bare], { env: gitEnv() });
    const fix = execFileSync("git", ["log", "-1", "--format=%H", "--grep", "Fix rounding"], { cwd: repo, encoding: "utf8" }).trim();
    const atFix = await readLocalHistory({ gitDir: bare }, { months: 24, maxCommits: 100 }, fix);
    expect(atFix.map((c) => c.message.split("\n")[0])).toEqual(["Fix rounding of the cart total", "Old: rounding of totals"]);
    expect(await readLocalHistory({ gitDir: bare }, { months: 120, maxCommits: 2 })).toEqual((await readLocalHistory({ cwd: repo }, window)).slice(0, 2));
  });

  it("refuses a folder that is not a repository of its own, even inside one", async () => {
    await expect(readLocalHistory({ cwd: path.join(repo, "shop") }, window)).rejects.toThrow(/git log failed/);
  });

  it("parses git's output whatever the names and messages hold", () => {
    const output = "\x01" + "a".repeat(40) + " 100 " + "b".repeat(40) + "\nSubject\n\nBody\x02\0\nx y.py\0z/ä.py\0" + "\x01" + "c".repeat(40) + " 90\nRoot\x02\0\nr.py\0";
    expect(parseGitLog(output)).toEqual([{ oid: "a".repeat(40), time: 100, message: "Subject\n\nBody", files: ["x y.py", "z/ä.py"] }]);
  });

  it("keepWindow drops what is older than the window and keeps the newest", () => {
    const at = (time: number) => ({ oid: String(time).padStart(40, "0"), time, message: "", files: [] });
    expect(keepWindow([at(5), at(NOW), at(NOW - 400 * DAY), at(NOW - DAY)], NOW, { months: 12, maxCommits: 2 }).map((c) => c.time)).toEqual([NOW, NOW - DAY]);
  });
});

describe("magis locate with history", () => {
  const run = async (args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: { MAGIS_DB: path.join(dir, "m.db") }, cwd: dir };
    const code = await main(["locate", "--repo", "repo", "--issue-file", "issue.md", "--bm25-only", "--json", ...args], io);
    return { code, files: (JSON.parse(out.join("")) as { files: Array<{ path: string }> }).files.map((f) => f.path), err: err.join("") };
  };

  it("ranks the file a past fix like the issue changed, which the issue's words alone miss", async () => {
    const { code, files, err } = await run([]);
    expect(code).toBe(0);
    expect(err).toBe("");
    expect(files).toContain("shop/money.py");
    fs.mkdirSync(path.join(repo, ".github"), { recursive: true });
    fs.writeFileSync(path.join(repo, ".github", "magis.yml"), "history_months: 0\n");
    try {
      expect((await run([])).files).not.toContain("shop/money.py");
    } finally {
      fs.rmSync(path.join(repo, ".github"), { recursive: true });
    }
  });
});
