import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.js";
import { makeFixtureRepo, promptPath } from "./fixture-repo.js";
import { judgeFiles } from "../../support/judge-files.js";

const run = promisify(execFile);
const entry = path.join(import.meta.dirname, "run-magis.ts");

let model: ScriptedModel;
let repo: string;
let work: string;

beforeAll(async () => {
  model = await startScriptedModel();
  model.script("custodian-summarize-file", (r) => ({ summary: `Summary of ${promptPath(r.messages[1]!.content)}.` }));
  model.script("custodian-summarize-diff", () => ({ message: "Adds a coupon check." }));
  model.script("custodian-judge-relevance", (r) => judgeFiles(r, (file) => /cart\.py|discount\.py/.test(file)));
  repo = makeFixtureRepo();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "magis-memory-"));
  fs.writeFileSync(path.join(work, "issue.md"), "# Cart total_price ignores discount codes\n\nThe `Cart` `total_price` ignores `apply_discount`.\n");
});

afterAll(async () => {
  await model.close();
  fs.rmSync(repo, { recursive: true, force: true });
  fs.rmSync(work, { recursive: true, force: true });
});

async function locateInNewProcess(): Promise<{ files: Array<{ path: string; kept: boolean }> }> {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", entry, "locate", "--repo", repo, "--issue-file", path.join(work, "issue.md"), "--top", "3", "--json"],
    { env: { ...process.env, OPENAI_BASE_URL: model.url, OPENAI_API_KEY: "test-key", MAGIS_DB: path.join(work, "magis.db"), MAGIS_MODEL: "scripted" } },
  );
  return JSON.parse(stdout) as { files: Array<{ path: string; kept: boolean }> };
}

const calls = (prompt: string) => model.requests.filter((r) => r.prompt === prompt).length;

// Three CLI processes in turn, each compiling the sources with tsx first: on a loaded two-core machine that alone
// takes most of the default 30 s.
describe("the evolution memory across two runs of magis locate", { timeout: 120_000 }, () => {
  it("summarizes on the first run, reuses on the second, and diffs a changed file on the third", async () => {
    const first = await locateInNewProcess();
    expect(first.files.map((f) => f.path)).toHaveLength(3);
    expect(
      first.files
        .filter((f) => f.kept)
        .map((f) => f.path)
        .sort(),
    ).toEqual(["shop/cart.py", "shop/discount.py"]);
    expect(calls("custodian-summarize-file")).toBe(3);

    // A new process: only the SQLite file carries the summaries over.
    const second = await locateInNewProcess();
    expect(second).toEqual(first);
    expect(calls("custodian-summarize-file")).toBe(3);
    expect(calls("custodian-summarize-diff")).toBe(0);

    fs.appendFileSync(path.join(repo, "shop/discount.py"), "\ndef is_coupon(code):\n    return code.isupper()\n");
    await locateInNewProcess();
    expect(calls("custodian-summarize-file")).toBe(3);
    expect(calls("custodian-summarize-diff")).toBe(1);
    const diffRequest = model.requests.find((r) => r.prompt === "custodian-summarize-diff")!;
    expect(diffRequest.messages[1]!.content).toContain("+def is_coupon(code):");
    expect(diffRequest.messages[1]!.content).toContain("Summary of shop/discount.py.");

    const db = new Database(path.join(work, "magis.db"), { readonly: true });
    const row = db.prepare("SELECT summary FROM custodian_memory WHERE path = ?").get("shop/discount.py") as { summary: string };
    db.close();
    expect(row.summary).toBe("Summary of shop/discount.py.\nChanged since: Adds a coupon check.");
    expect(model.problems).toEqual([]);
  });
});
