import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../../src/cli.js";

let work: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-resolve-usage-"));
  fs.mkdirSync(path.join(work, "repo"));
  fs.writeFileSync(path.join(work, "issue.md"), "# A title\n\nA body.\n");
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

async function run(args: string[], files: Record<string, string> = {}) {
  for (const [file, text] of Object.entries(files)) fs.writeFileSync(path.join(work, file), text);
  const err: string[] = [];
  const code = await main(["resolve", ...args], { stdout: () => {}, stderr: (t) => err.push(t), env: {}, cwd: work });
  return { code, err: err.join("") };
}

describe("magis resolve usage", () => {
  it("needs --repo, --issue-file and --out, each missing one a one-line error with exit code 2", async () => {
    for (const args of [
      ["--issue-file", "issue.md", "--out", "out"],
      ["--repo", "repo", "--out", "out"],
      ["--repo", "repo", "--issue-file", "issue.md"],
    ]) {
      const { code, err } = await run(args);
      expect(code).toBe(2);
      expect(err.trim().split("\n")).toHaveLength(1);
      expect(err).toMatch(/--(repo|issue-file|out) is required/);
    }
  });

  it("refuses an output folder inside the checkout, which must stay untouched", async () => {
    const { code, err } = await run(["--repo", "repo", "--issue-file", "issue.md", "--out", "repo/out"]);
    expect(code).toBe(2);
    expect(err).toContain("--out repo/out is inside --repo");
    expect(fs.existsSync(path.join(work, "repo/out"))).toBe(false);
    // Also when --out reaches the checkout through a symbolic link.
    fs.symlinkSync("repo", path.join(work, "repo-link"));
    const linked = await run(["--repo", "repo", "--issue-file", "issue.md", "--out", "repo-link/out"]);
    expect(linked.code).toBe(2);
    expect(linked.err).toContain("--out repo-link/out is inside --repo");
    expect(fs.existsSync(path.join(work, "repo/out"))).toBe(false);
  });

  it("names an unreadable issue file and an empty one", async () => {
    expect((await run(["--repo", "repo", "--issue-file", "nope.md", "--out", "out"])).err).toContain("--issue-file nope.md cannot be read (no such file)");
    const empty = await run(["--repo", "repo", "--issue-file", "empty.md", "--out", "out"], { "empty.md": "\n\n" });
    expect(empty.code).toBe(2);
    expect(empty.err).toContain("is empty; write the title on the first line");
  });

  it("lists every problem of a broken .github/magis.yml and exits 1 before calling any model", async () => {
    fs.mkdirSync(path.join(work, "repo/.github"));
    fs.writeFileSync(path.join(work, "repo/.github/magis.yml"), "qa_iterations: 0\nconcurrency: many\n");
    const { code, err } = await run(["--repo", "repo", "--issue-file", "issue.md", "--out", "out"]);
    expect(code).toBe(1);
    expect(err).toContain("qa_iterations");
    expect(err).toContain("concurrency");
    expect(fs.existsSync(path.join(work, "out"))).toBe(false);
  });

  it("says how to configure a model when there is none, local servers and what works offline included, writing nothing", async () => {
    const { code, err } = await run(["--repo", "repo", "--issue-file", "issue.md", "--out", "out"]);
    expect(code).toBe(2);
    expect(err).toContain("magis resolve: no model is configured: OPENAI_API_KEY is not set.");
    for (const named of [
      "http://127.0.0.1:11434/v1",
      "http://127.0.0.1:8000/v1",
      "MAGIS_MODEL=",
      "magis eval --oracle",
      "magis locate --bm25-only",
      "npm run demo",
    ])
      expect(err).toContain(named);
    expect(fs.existsSync(path.join(work, "out"))).toBe(false);
  });

  it("refuses an empty --test-command before anything is written", async () => {
    for (const command of ["", "  "]) {
      const { code, err } = await run(["--repo", "repo", "--issue-file", "issue.md", "--out", "out", "--test-command", command]);
      expect(code).toBe(2);
      expect(err.trim()).toBe(
        `magis resolve: --test-command is empty; give the command that runs the checkout's tests, such as --test-command "npm test"; run 'magis resolve --help'`,
      );
    }
    expect(fs.readdirSync(work).sort()).toEqual(["issue.md", "repo"]);
  });
});
