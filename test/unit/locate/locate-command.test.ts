import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli.js";
import type { CliIo } from "../../../src/cli/io.js";

let dir: string;
let repo: string;

// The evolution memory goes to the user's cache folder: here, one inside the test's folder.
function capture(env: NodeJS.ProcessEnv = { XDG_CACHE_HOME: path.join(dir, "cache") }) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env, cwd: dir };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "magis-locate-cli-"));
  repo = path.join(dir, "repo");
  fs.mkdirSync(path.join(repo, "pkg"), { recursive: true });
  fs.writeFileSync(path.join(repo, "pkg", "cart.py"), "class Cart:\n    def total_price(self):\n        return 0\n");
  fs.writeFileSync(path.join(repo, "pkg", "ship.py"), "def shipping_cost(weight):\n    return weight\n");
  fs.writeFileSync(path.join(dir, "issue.md"), "# Cart total_price is always 0\n\n`Cart.total_price` ignores the items.\n");
  fs.writeFileSync(path.join(dir, "empty-body.md"), "total_price\n");
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("magis locate", () => {
  it("prints exactly {files:[{path, score}]} with --bm25-only --json", async () => {
    const c = capture();
    expect(await main(["locate", "--repo", "repo", "--issue-file", "issue.md", "--bm25-only", "--json"], c.io)).toBe(0);
    const parsed = JSON.parse(c.out()) as { files: Array<Record<string, unknown>> };
    expect(Object.keys(parsed)).toEqual(["files"]);
    expect(parsed.files.map((f) => f.path)).toEqual(["pkg/cart.py"]);
    expect(Object.keys(parsed.files[0]!)).toEqual(["path", "score"]);
    expect(typeof parsed.files[0]!.score).toBe("number");
  });

  it("prints a ranked table without --json, and accepts an issue without a body", async () => {
    const c = capture();
    expect(await main(["locate", "--repo", "repo", "--issue-file", "empty-body.md", "--bm25-only"], c.io)).toBe(0);
    expect(c.out()).toMatch(/^rank\s+score\s+file\n\s+1\s+[\d.]+\s+pkg\/cart\.py\n$/);
  });

  it("answers a missing repository, a missing issue file and a bad --top with one line and exit code 2", async () => {
    for (const args of [
      ["--repo", "nope", "--issue-file", "issue.md", "--bm25-only"],
      ["--repo", "repo", "--issue-file", "nope.md", "--bm25-only"],
      ["--repo", "repo", "--issue-file", "issue.md", "--bm25-only", "--top", "zero"],
      ["--issue-file", "issue.md"],
    ]) {
      const c = capture();
      expect(await main(["locate", ...args], c.io)).toBe(2);
      expect(c.err().trim().split("\n")).toHaveLength(1);
    }
  });

  it("reads --top as digits only, as settings are read: hex, exponents, fractions, signs and nothing are refused", async () => {
    for (const top of ["0x10", "1e3", "2.5", "+3", "", "1001"]) {
      const c = capture();
      expect(await main(["locate", "--repo", "repo", "--issue-file", "issue.md", "--bm25-only", "--top", top], c.io)).toBe(2);
      expect(c.err().trim()).toBe(`magis locate: --top must be a whole number from 1 to 1000, not '${top}'; run 'magis locate --help'`);
    }
    const c = capture();
    expect(await main(["locate", "--repo", "repo", "--issue-file", "issue.md", "--bm25-only", "--json", "--top", "1_0"], c.io)).toBe(0);
    expect((JSON.parse(c.out()) as { files: unknown[] }).files).toHaveLength(1);
  });

  it("says how to configure a model when none is set, and what works without one", async () => {
    const c = capture({});
    expect(await main(["locate", "--repo", "repo", "--issue-file", "issue.md"], c.io)).toBe(2);
    const lines = c.err().split("\n");
    expect(lines[0]).toBe(
      "magis locate: no model is configured: OPENAI_API_KEY is not set. Set it, or set OPENAI_BASE_URL to an OpenAI-compatible server that needs no key.",
    );
    // A local server: where Ollama and vLLM listen, and the model to name.
    expect(c.err()).toMatch(/Ollama: +OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:11434\/v1 MAGIS_MODEL=/);
    expect(c.err()).toMatch(/vLLM: +OPENAI_BASE_URL=http:\/\/127\.0\.0\.1:8000\/v1 MAGIS_MODEL=/);
    // What works offline.
    for (const offline of ["magis locate --bm25-only", "magis eval --oracle", "npm run demo"])
      expect(
        lines.some((line) => line.trim().startsWith(offline)),
        offline,
      ).toBe(true);
    expect(c.err()).not.toContain("--help");
  });

  it("fails with the reason and the next step when nothing matches", async () => {
    fs.writeFileSync(path.join(dir, "unrelated.md"), "Zanzibar quokka\n");
    const c = capture();
    expect(await main(["locate", "--repo", "repo", "--issue-file", "unrelated.md", "--bm25-only"], c.io)).toBe(1);
    expect(c.err()).toMatch(/none of the 2 files shares a word with the issue\. Next: /);
  });
});
