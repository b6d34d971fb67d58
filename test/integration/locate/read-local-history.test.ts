import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../../../src/cli.js";
import type { CliIo } from "../../../src/cli/io.js";
import { keepWindow, type HistoryWindow } from "../../../src/git/commit-history.js";
import { parseGitLog, readLocalHistory } from "../../../src/git/read-local-history.js";
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
  commitAt(90, "Fix rounding of the cart total\n\nThe last cent was lost.\n\nCo-authored-by: A <a@example.com>", {
    "shop/money.py": "def to_minor(v):\n    return round(v * 100, 0)\n",
    "docs/notes for ä.md": "notes\n",
  });
  commitAt(60, "Move shipping", { "shop/ship.py": "def ship():\n    pass\n" });
  commitAt(30, "Rename shipping", { "shop/ship.py": null, "shop/shipping.py": "def ship():\n    pass\n" });
  execFileSync("git", ["checkout", "-q", "-b", "side"], { cwd: repo, env: gitEnv() });
  commitAt(20, "Side change", { "shop/side.py": "x = 1\n" });
  execFileSync("git", ["checkout", "-q", "main"], { cwd: repo, env: gitEnv() });
  commitAt(15, "Main change", { "shop/cart.py": "class Cart:\n    items = []\n" });
  const date = `@${NOW - 10 * DAY} +0000`;
  execFileSync("git", ["merge", "-q", "--no-ff", "-m", "Merge side", "side"], {
    cwd: repo,
    env: { ...gitEnv(), GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  });
  fs.writeFileSync(path.join(dir, "issue.md"), "# The cart total loses a cent\n\nThe total of three items is one cent short after rounding.\n");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("readLocalHistory", () => {
  it("reads the commits within the window of HEAD, newest first, merges and the root commit left out, renames as a deletion and an addition", async () => {
    const commits = await readLocalHistory({ cwd: repo }, window);
    expect(commits.map((c) => c.message.split("\n")[0])).toEqual([
      "Main change",
      "Side change",
      "Rename shipping",
      "Move shipping",
      "Fix rounding of the cart total",
    ]);
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
    const output =
      "\x01" +
      "a".repeat(40) +
      " 100 " +
      "b".repeat(40) +
      "\nSubject \x02\x01\n\nb.py\nBody\n\x02\0\nx y.py\0z/ä.py\0" +
      "No signature\n\x01" +
      "c".repeat(40) +
      " 90\nRoot\x02\0\nr.py\0" +
      "\x01" +
      "d".repeat(40) +
      " 80 " +
      "e".repeat(40) +
      "\nEmpty\x02\0";
    expect(parseGitLog(output)).toEqual([
      { oid: "a".repeat(40), time: 100, message: "Subject \x02\x01\n\nb.py\nBody", files: ["x y.py", "z/ä.py"] },
      { oid: "d".repeat(40), time: 80, message: "Empty", files: [] },
    ]);
  });

  it("keepWindow drops what is older than the window and keeps the newest", () => {
    const at = (time: number) => ({ oid: String(time).padStart(40, "0"), time, message: "", files: [] });
    expect(keepWindow([at(5), at(NOW), at(NOW - 400 * DAY), at(NOW - DAY)], NOW, { months: 12, maxCommits: 2 }).map((c) => c.time)).toEqual([NOW, NOW - DAY]);
  });
});

describe("readLocalHistory on odd repositories", () => {
  let tick = 0;
  /** Runs git in `at`, each commit a second after the last (so their order is known), and returns its output. */
  const git = (at: string, args: string[], input?: string | Buffer) => {
    const date = `@${NOW + ++tick} +0000`;
    return execFileSync("git", args, { cwd: at, env: { ...gitEnv(), GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }, input, encoding: "utf8" }).trim();
  };
  /** A fresh repository with its own config, and its first commit (a root, which the history leaves out) unless `empty`. */
  function repository(name: string, config: Array<[string, string]> = [], empty = false): string {
    const at = path.join(dir, name);
    fs.mkdirSync(at);
    git(at, ["init", "-q", "-b", "main"]);
    for (const [key, value] of config) git(at, ["config", key, value]);
    if (!empty) commitVerbatim(at, "README", "Start\n", []);
    return at;
  }
  /** Commits one more file with `message` byte for byte (commit-tree cleans nothing up); `options` such as -S. */
  function commitVerbatim(at: string, file: string | Buffer, message: string, parents = ["-p", "HEAD"], options: string[] = []): void {
    fs.writeFileSync(Buffer.concat([Buffer.from(`${at}/`), Buffer.from(file)]), "x\n");
    git(at, ["add", "-A"]);
    git(at, ["update-ref", "HEAD", git(at, ["commit-tree", ...options, git(at, ["write-tree"]), ...parents], message)]);
  }
  /** Commits one more file with a message of raw bytes, which commit-tree would have re-encoded. */
  function commitBytes(at: string, file: Buffer, message: Buffer): void {
    fs.writeFileSync(Buffer.concat([Buffer.from(`${at}/`), file]), "x\n");
    git(at, ["add", "-A"]);
    const who = `Test <t@example.com> ${NOW + ++tick} +0000`;
    const head = Buffer.from(`tree ${git(at, ["write-tree"])}\nparent ${git(at, ["rev-parse", "HEAD"])}\nauthor ${who}\ncommitter ${who}\n\n`);
    git(at, ["update-ref", "HEAD", git(at, ["hash-object", "-t", "commit", "-w", "--stdin"], Buffer.concat([head, message]))]);
  }

  it("reads no history from a repository without commits, and takes a file named HEAD for a file", async () => {
    const empty = repository("empty", [], true);
    expect(await readLocalHistory({ cwd: empty }, window)).toEqual([]);
    commitVerbatim(empty, "HEAD", "A file named HEAD\n", []);
    commitVerbatim(empty, "a.py", "Add a\n");
    expect((await readLocalHistory({ cwd: empty }, window)).map((c) => c.files)).toEqual([["a.py"]]);
  });

  it("says which commit is missing", async () => {
    const at = repository("missing");
    await expect(readLocalHistory({ cwd: at }, window, "0".repeat(40))).rejects.toThrow(`no commit ${"0".repeat(40)} in ${at}`);
  });

  it("says git is missing, and what to do", async () => {
    const at = repository("no-git");
    vi.stubEnv("PATH", path.join(dir, "no-such-bin"));
    try {
      await expect(readLocalHistory({ cwd: at }, window)).rejects.toThrow(`git is not installed (not found on PATH): install git to read the history of ${at}`);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("keeps messages holding the marks, CRLF, a line like a file and bytes that are not UTF-8 apart from the files", async () => {
    const at = repository("odd");
    commitVerbatim(at, "money.py", "Fix \x02rounding\x01 of totals\r\n\r\nmoney.py\r\ncart.py\r\n");
    commitBytes(at, Buffer.from("caf\xe9.py", "latin1"), Buffer.from("Caf\xe9 prices\n", "latin1"));
    commitVerbatim(at, "after.py", "After\n");
    const commits = await readLocalHistory({ cwd: at }, window);
    expect(commits.map((c) => [c.message, c.files])).toEqual([
      ["After", ["after.py"]],
      ["Caf\ufffd prices", ["caf\ufffd.py"]],
      ["Fix \x02rounding\x01 of totals\r\n\r\nmoney.py\r\ncart.py\r", ["money.py"]],
    ]);
  });

  it("reads messages as UTF-8 whatever encoding the repository's config asks git log for", async () => {
    const at = repository("latin1-log", [["i18n.logOutputEncoding", "ISO-8859-1"]]);
    commitVerbatim(at, "size.py", "Größe der Summe\n");
    expect((await readLocalHistory({ cwd: at }, window))[0]!.message).toBe("Größe der Summe");
  });

  it("checks no signature where log.showSignature asks for it, and reads the files alone", async () => {
    const at = repository("signed", [
      ["log.showSignature", "true"],
      ["gpg.format", "ssh"],
    ]);
    // A commit carrying an SSH signature header, written as bytes: git would ask the checker below to verify it.
    fs.writeFileSync(path.join(at, "signed.py"), "x\n");
    git(at, ["add", "-A"]);
    const who = `Test <t@example.com> ${NOW + ++tick} +0000`;
    const signature = "gpgsig -----BEGIN SSH SIGNATURE-----\n U1NIU0lHAAAAAQ==\n -----END SSH SIGNATURE-----\n";
    const signed = `tree ${git(at, ["write-tree"])}\nparent ${git(at, ["rev-parse", "HEAD"])}\nauthor ${who}\ncommitter ${who}\n${signature}\nSigned\n`;
    git(at, ["update-ref", "HEAD", git(at, ["hash-object", "-t", "commit", "-w", "--stdin"], Buffer.from(signed))]);
    commitVerbatim(at, "newer.py", "Newer\n");
    // Checking each signature would run this program once per signed commit: thousands of runs in a signed history.
    const checker = path.join(dir, "check-signature.sh");
    fs.writeFileSync(checker, `#!/bin/sh\ntouch "${checker}.ran"\nexit 1\n`, { mode: 0o755 });
    git(at, ["config", "gpg.ssh.allowedSignersFile", path.join(dir, "allowed-signers")]);
    git(at, ["config", "gpg.ssh.program", checker]);
    expect((await readLocalHistory({ cwd: at }, window)).map((c) => [c.message, c.files])).toEqual([
      ["Newer", ["newer.py"]],
      ["Signed", ["signed.py"]],
    ]);
    expect(fs.existsSync(`${checker}.ran`)).toBe(false);
    // The checker is what git runs when it is allowed to check: the test would catch a reader that lets it.
    execFileSync("git", ["-C", at, "log", "-1", "--format=%H", "HEAD~1"], { env: gitEnv(), stdio: "pipe" });
    expect(fs.existsSync(`${checker}.ran`)).toBe(true);
  });

  it("leaves out the commit a shallow clone is cut at: its parents are not there to compare with", async () => {
    const at = repository("deep");
    commitVerbatim(at, "one.py", "One\n");
    commitVerbatim(at, "two.py", "Two\n");
    const shallow = path.join(dir, "shallow");
    execFileSync("git", ["clone", "-q", "--depth", "2", `file://${at}`, shallow], { env: gitEnv() });
    expect((await readLocalHistory({ cwd: shallow }, window)).map((c) => c.files)).toEqual([["two.py"]]);
  });
});

describe("magis locate with history", () => {
  const run = async (args: string[], checkout = "repo") => {
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: { MAGIS_DB: path.join(dir, "m.db") }, cwd: dir };
    const code = await main(["locate", "--repo", checkout, "--issue-file", "issue.md", "--bm25-only", "--json", ...args], io);
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

  it("ranks without the history it cannot read, says why and how to stop reading it, and reads none at history_months: 0", async () => {
    const broken = path.join(dir, "broken");
    fs.mkdirSync(path.join(broken, "shop"), { recursive: true });
    fs.writeFileSync(path.join(broken, "shop", "cart.py"), "class Cart:\n    def total(self):\n        return 0\n");
    fs.writeFileSync(path.join(broken, ".git"), "gitdir: ../nowhere\n");
    const read = await run([], "broken");
    expect(read.code).toBe(0);
    expect(read.files).toEqual(["shop/cart.py"]);
    expect(read.err).toMatch(
      /^magis: the commit history was not read \(git log failed in \S+broken \(exit 128\): fatal: .*\); files are ranked without it \(history_months: 0 in .github\/magis.yml reads none\)\n$/s,
    );
    fs.mkdirSync(path.join(broken, ".github"));
    fs.writeFileSync(path.join(broken, ".github", "magis.yml"), "history_months: 0\n");
    expect(await run([], "broken")).toEqual({ code: 0, files: ["shop/cart.py"], err: "" });
  });
});
