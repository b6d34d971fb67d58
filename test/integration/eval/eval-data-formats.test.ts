import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { createBareRepository, gitEnv } from "../../support/git-server.js";
import { instanceLines, readLines, scriptTeam, startEvalRig, type EvalRig } from "./eval-rig.js";

// Six rows of SWE-bench Lite's test split, one per repository (see test/unit/eval/read-instances.test.ts).
const SAMPLE = path.resolve(import.meta.dirname, "../../fixtures/swe-bench-lite-sample.jsonl");

let rig: EvalRig;

beforeAll(async () => {
  rig = await startEvalRig();
  scriptTeam(rig.model);
});
afterAll(() => rig.close());

/** The rig's three instances as SWE-bench's JSON array, under a name that says nothing of its format. */
function arrayOfRig(name: string): string {
  const file = path.join(rig.work, name);
  fs.writeFileSync(
    file,
    JSON.stringify(
      instanceLines(rig.commit).map((line) => JSON.parse(line) as unknown),
      null,
      2,
    ),
  );
  return file;
}

interface SweBenchRow {
  instance_id: string;
  repo: string;
  base_commit: string;
  patch: string;
}

/** The sample's rows as SWE-bench ships them. */
function sampleRows(): SweBenchRow[] {
  return fs
    .readFileSync(SAMPLE, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as SweBenchRow);
}

/**
 * The gold file of a one-file patch as far as the patch shows it: each hunk's old lines at their old line numbers, blank
 * lines between, so the gold patch applies to it as it does to the repository at base_commit.
 */
function fileBeforePatch(patch: string): { path: string; text: string } {
  const file = /^--- a\/(.+)$/m.exec(patch)![1]!;
  const lines: string[] = [];
  let at = 0;
  for (const line of patch.split("\n")) {
    const hunk = /^@@ -(\d+)/.exec(line);
    if (hunk) {
      while (lines.length < Number(hunk[1]) - 1) lines.push("");
      at = 1;
    } else if (at > 0 && (line.startsWith(" ") || line.startsWith("-"))) lines.push(line.slice(1));
  }
  return { path: file, text: lines.join("\n") + "\n" };
}

describe("magis eval's --data", () => {
  it("runs SWE-bench's JSON array as it runs JSON Lines", async () => {
    const out = path.join(rig.work, "out-array");
    const run = await rig.eval(["--data", arrayOfRig("lite.data"), "--out", out, "--prepare-from", rig.mirrors, "--instances", "acme__greet-1"]);
    expect(run.code, run.stderr).toBe(0);
    const [result] = readLines(path.join(out, "results.jsonl"));
    expect(result).toMatchObject({ instance_id: "acme__greet-1", patch: true, applies: true, coverage: 1, failure: null });
  });

  it("runs real SWE-bench rows given as a JSON array through the whole pipeline, with the oracle", async () => {
    // Each row's repository, as a mirror holding its gold file as far as the gold patch shows it (and a file beside it),
    // and the row as SWE-bench ships it but for its base_commit, which names that mirror's commit.
    const mirrors = path.join(rig.work, "real-mirrors");
    const rows = sampleRows().map((row) => {
      const gold = fileBeforePatch(row.patch);
      // The gold file holds only the lines the patch shows, not a whole program: Pyright would rightly find names it uses
      // and no longer defines, so the semantic check is off for these fragments.
      const bare = createBareRepository(mirrors, row.repo, {
        [gold.path]: gold.text,
        "setup.py": "from setuptools import setup\n\nsetup()\n",
        ".github/magis.yml": "diagnostics:\n  enabled: false\n",
      });
      const commit = execFileSync("git", ["--git-dir", bare, "rev-parse", "HEAD"], { env: gitEnv() }).toString().trim();
      return { ...row, base_commit: commit };
    });
    const data = path.join(rig.work, "swe-bench-lite-sample.json");
    fs.writeFileSync(data, JSON.stringify(rows, null, 2));
    const out = path.join(rig.work, "out-real");
    const requests = rig.model.requests.length;
    const run = await rig.eval(["--oracle", "--data", data, "--out", out, "--repos", path.join(rig.work, "real-checkouts"), "--prepare-from", mirrors]);
    expect(run.code, run.stderr).toBe(0);
    const results = readLines(path.join(out, "results.jsonl"));
    expect(results.map((r) => [r.instance_id, r.applies, r.coverage, r.losses, r.failure])).toEqual(rows.map((row) => [row.instance_id, true, 1, [], null]));
    // The oracle never asks a clarifying question: none took that path, and the summary counts them.
    expect(results.filter((r) => "question" in r)).toEqual([]);
    expect(fs.readFileSync(path.join(out, "summary.md"), "utf8")).toContain("| asked a clarifying question instead (results.jsonl `question`) | 0 |");
    // Each prediction is the gold patch, as the pipeline carried it through.
    const predictions = new Map(readLines(path.join(out, "predictions.jsonl")).map((p) => [p.instance_id, p.model_patch as string]));
    for (const row of rows) expect(predictions.get(row.instance_id), row.instance_id).toContain(row.patch.split("\n").find((line) => line.startsWith("+ "))!);
    expect(rig.model.requests.length).toBe(requests);
    // Each instance runs the whole pipeline, Pyright's checks of each attempt included.
  }, 120_000);

  it("loads real SWE-bench rows from a JSON array, and exits 1 when not one of them has a checkout", async () => {
    const rows = sampleRows();
    const data = path.join(rig.work, "swe-bench-lite.json");
    fs.writeFileSync(data, JSON.stringify(rows, null, 2));
    const out = path.join(rig.work, "out-lite");
    const repos = path.join(rig.work, "no-checkouts");
    const requests = rig.model.requests.length;
    const run = await rig.eval(["--data", data, "--out", out, "--repos", repos]);
    const results = readLines(path.join(out, "results.jsonl"));
    expect(results.map((r) => r.instance_id)).toEqual(rows.map((row) => row.instance_id));
    expect(results.map((r) => (r.failure as { reason: string }).reason)).toEqual(
      rows.map((row) => expect.stringContaining(`no checkout at ${path.join(repos, row.instance_id)}: check out `)),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("magis eval: not one of the 6 instance(s) could be loaded, so nothing was measured; the first: no checkout at ");
    expect(rig.model.requests.length).toBe(requests);
  });

  it("refuses a file that is neither, naming it and what was expected, before writing anything", async () => {
    const data = path.join(rig.work, "one-object.json");
    fs.writeFileSync(data, JSON.stringify(JSON.parse(instanceLines(rig.commit)[0]!), null, 2));
    const out = path.join(rig.work, "out-neither");
    const run = await rig.eval(["--data", data, "--out", out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `magis eval: ${data} is neither JSON Lines nor a JSON array: no line of it is a JSON object (it begins '{'); expected SWE-bench instances`,
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it("refuses --instances ids the file does not hold before anything runs, naming them and the nearest known ones", async () => {
    const out = path.join(rig.work, "out-unknown");
    const repos = path.join(rig.work, "repos-unknown");
    const requests = rig.model.requests.length;
    const run = await rig.eval([
      "--out",
      out,
      "--repos",
      repos,
      "--prepare-from",
      rig.mirrors,
      "--instances",
      "acme__greet-1,acme__greet-12,sympy__sympy-20590",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `magis eval: --instances names 2 ids that ${rig.data} does not hold: acme__greet-12 (nearest: acme__greet-1, acme__greet-2, acme__greet-3); sympy__sympy-20590. It holds 3 ids: acme__greet-1, acme__greet-2, acme__greet-3; run 'magis eval --help'\n`,
    );
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.existsSync(repos)).toBe(false);
    expect(rig.model.requests.length).toBe(requests);
  });
});
