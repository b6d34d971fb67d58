import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeDiff } from "../../../src/edit/make-diff.js";

const repos: string[] = [];
afterAll(() => repos.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Commit `before` (null: no file) in a fresh repository, `git apply` the diff, and return the file afterwards. */
function applyWithGit(path: string, before: string | null, diff: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), "magis-diff-"));
  repos.push(dir);
  const git = (...args: string[]): string =>
    execFileSync("git", ["-c", "core.autocrlf=false", "-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: dir, encoding: "utf8" });
  git("init", "-q");
  writeFileSync(join(dir, "keep.txt"), "keep\n");
  if (before !== null) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), before);
  }
  git("add", "-A");
  git("commit", "-q", "-m", "before");
  writeFileSync(join(dir, "change.diff"), diff);
  git("apply", "--check", "change.diff");
  git("apply", "change.diff");
  return existsSync(join(dir, path)) ? readFileSync(join(dir, path), "utf8") : null;
}

const cases: [name: string, path: string, before: string | null, after: string | null][] = [
  ["a changed line", "src/a.js", "a\nb\nc\n", "a\nB\nc\n"],
  [
    "lines added and removed in a longer file",
    "lib/x.py",
    Array.from({ length: 40 }, (_, i) => `line ${i}\n`).join(""),
    Array.from({ length: 40 }, (_, i) => (i % 9 === 0 ? `changed ${i}\n` : `line ${i}\n`)).join("") + "tail\n",
  ],
  ["a CRLF file", "win.txt", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\nd\r\n"],
  ["a file without a final newline", "n.txt", "a\nb\nc", "a\nB\nc"],
  ["a final newline added", "n.txt", "a\nb", "a\nb\n"],
  ["a final newline removed", "n.txt", "a\nb\n", "a\nb"],
  ["a CRLF file without a final newline", "w.txt", "a\r\nb", "a\r\nc"],
  ["a new file", "new/file.ts", null, "export const x = 1;\n"],
  ["a new empty file", "empty.txt", null, ""],
  ["a deleted file", "gone.md", "# gone\n\ntext\n", null],
  ["all content deleted, file kept", "cleared.txt", "a\nb\n", ""],
  ["content added to an empty file", "filled.txt", "", "a\n"],
  ["a path with a space and Unicode", "docs/my café.md", "x\n", "y\n"],
];

describe("makeDiff", () => {
  for (const [name, path, before, after] of cases) {
    it(`produces a diff git apply accepts: ${name}`, () => {
      const diff = makeDiff(path, before, after);
      expect(diff.split("\n")[0]).toBe(`diff --git a/${path} b/${path}`);
      expect(applyWithGit(path, before, diff)).toBe(after);
    });
  }

  it("writes the --- a/ and +++ b/ headers", () => {
    const lines = makeDiff("p.txt", "a\n", "b\n").split("\n");
    expect(lines.slice(0, 4)).toEqual(["diff --git a/p.txt b/p.txt", "--- a/p.txt", "+++ b/p.txt", "@@ -1,1 +1,1 @@"]);
  });

  it("is empty when nothing changed", () => {
    expect(makeDiff("p.txt", "same\n", "same\n")).toBe("");
  });
});
