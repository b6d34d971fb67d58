import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adversarialBodies } from "../../../bench/lib/adversarial-issues.js";
import { makeFixtureRepo } from "./fixture-repo.js";

const run = promisify(execFile);
const entry = path.join(import.meta.dirname, "run-magis.ts");

let repo: string;
let work: string;

beforeAll(() => {
  repo = makeFixtureRepo();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-adversarial-"));
});

afterAll(() => {
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

describe("magis locate on an issue with long runs of text without spaces", () => {
  // Each body was quadratic in buildQuery: 100k characters of any one took from half a minute to two.
  // Linear code ranks all of them in well under a second; the kill only stops a regression from hanging.
  it("ranks the file the issue names, through every pasted attachment, in a process that is not killed", async () => {
    const attachments = Object.values(adversarialBodies(100_000));
    const issue = [
      "# Cart total_price crashes after a pasted attachment",
      "",
      "`total_price` in shop/cart.py raises; the attachments follow.",
      ...attachments.map((body) => `\n${body}\n`),
    ].join("\n");
    fs.writeFileSync(path.join(work, "issue.md"), issue);
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", entry, "locate", "--repo", repo, "--issue-file", path.join(work, "issue.md"), "--bm25-only", "--json", "--top", "2"],
      // Its store in the test's folder: by default `magis locate` keeps one under the working directory, this repository.
      { timeout: 90_000, killSignal: "SIGKILL", maxBuffer: 1 << 20, env: { ...process.env, DATABASE_URL: "", MAGIS_DB: path.join(work, "magis.db") } },
    );
    const ranked = JSON.parse(stdout) as { files: Array<{ path: string }> };
    expect(ranked.files[0]!.path).toBe("shop/cart.py");
  }, 120_000);

  // A pasted attachment of 1 MB in base64 filled the query with its fragments: no file shared a word with what was left.
  it("ranks the file the title names when the body is a megabyte of base64", async () => {
    const blob = Buffer.concat(Array.from({ length: 23_500 }, (_, i) => createHash("sha256").update(String(i)).digest())).toString("base64");
    fs.writeFileSync(path.join(work, "blob.md"), `# Cart total_price crashes in shop/cart.py\n\n${blob}\n`);
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", entry, "locate", "--repo", repo, "--issue-file", path.join(work, "blob.md"), "--bm25-only", "--json", "--top", "2"],
      { timeout: 90_000, killSignal: "SIGKILL", maxBuffer: 1 << 20, env: { ...process.env, DATABASE_URL: "", MAGIS_DB: path.join(work, "magis.db") } },
    );
    const ranked = JSON.parse(stdout) as { files: Array<{ path: string }> };
    expect(ranked.files[0]!.path).toBe("shop/cart.py");
  }, 120_000);
});
