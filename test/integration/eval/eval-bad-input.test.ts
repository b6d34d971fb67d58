import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareCheckout } from "../../../src/eval/prepare-checkouts.js";
import { reply } from "../../support/scripted-model.js";
import { instanceLines, noMirrorMessage, readLines, scriptTeam, startEvalRig, type EvalRig } from "./eval-rig.js";

let rig: EvalRig;

/** The resolved instance of the rig under other ids, a broken line, and a duplicate. */
function lines(commit: string): string[] {
  const good = instanceLines(commit)[0]!;
  const as = (id: string) => good.replace("acme__greet-1", id);
  return ['{"instance_id": "acme__greet-0", "repo": ', good, as("acme__greet-missing"), as("acme__greet-moved"), as("acme__greet-broken"), good];
}

beforeAll(async () => {
  rig = await startEvalRig(lines);
  scriptTeam(rig.model);
  const instance = { instance_id: "", repo: "acme/greet", base_commit: rig.commit, problem_statement: "", gold_files: [] };
  for (const id of ["acme__greet-1", "acme__greet-moved", "acme__greet-broken"])
    await prepareCheckout({ ...instance, instance_id: id }, rig.mirrors, rig.repos);
  fs.writeFileSync(path.join(rig.repos, "acme__greet-moved.base_commit"), `${"0".repeat(40)}\n`);
  fs.mkdirSync(path.join(rig.repos, "acme__greet-broken", ".github"));
  fs.writeFileSync(path.join(rig.repos, "acme__greet-broken", ".github", "magis.yml"), "top_k: many\n");
});

afterAll(() => rig.close());

describe("magis eval on bad input", () => {
  it("records a broken line, a missing checkout, another commit and a crash as those instances' failures, and goes on", async () => {
    const run = await rig.eval();
    expect(run.code).toBe(0);
    const results = readLines(path.join(rig.out, "results.jsonl"));
    const failures = Object.fromEntries(results.map((r) => [r.instance_id, r.failure as { stage: string; reason: string } | null]));
    expect(Object.keys(failures)).toEqual(["acme__greet-0", "acme__greet-1", "acme__greet-missing", "acme__greet-moved", "acme__greet-broken"]);
    expect(failures["acme__greet-0"]).toEqual({ stage: "input", reason: `${rig.data}:1 is not JSON; each line must be one instance object` });
    expect(failures["acme__greet-1"]).toBeNull();
    expect(failures["acme__greet-missing"]).toEqual({
      stage: "input",
      reason: `no checkout at ${path.join(rig.repos, "acme__greet-missing")}: check out acme/greet at ${rig.commit} there, or pass --prepare-from MIRRORS`,
    });
    expect(failures["acme__greet-moved"]).toEqual({
      stage: "input",
      reason: `${path.join(rig.repos, "acme__greet-moved")} is at ${"0".repeat(40)}, not at the instance's base commit ${rig.commit}: check out ${rig.commit} there`,
    });
    expect(failures["acme__greet-broken"]!.stage).toBe("crash");
    expect(failures["acme__greet-broken"]!.reason).toContain("magis.yml");
    expect(readLines(path.join(rig.out, "predictions.jsonl")).map((p) => [p.instance_id, p.model_patch === ""])).toEqual([
      ["acme__greet-0", true],
      ["acme__greet-1", false],
      ["acme__greet-missing", true],
      ["acme__greet-moved", true],
      ["acme__greet-broken", true],
    ]);
    expect(fs.readFileSync(path.join(rig.out, "summary.md"), "utf8")).toContain("| failed, by stage | input 3, crash 1 |");
  });

  it("refuses ids that are no folder of their own ('.', '..') and fields of the wrong type, deleting nothing", async () => {
    const out = path.join(rig.work, "out-ids");
    const data = path.join(rig.work, "ids.jsonl");
    const good = instanceLines(rig.commit)[0]!;
    fs.writeFileSync(
      data,
      [
        good.replace("acme__greet-1", ".."),
        good.replace("acme__greet-1", "."),
        JSON.stringify({ ...JSON.parse(good), instance_id: "acme__greet-typed", patch: 7 }),
        // A usable record, so the run goes on; its repository has no mirror.
        good.replace("acme__greet-1", "acme__absent-1").replace('"acme/greet"', '"acme/absent"'),
        "",
      ].join("\n"),
    );
    const before = fs.readdirSync(rig.repos).sort();
    const run = await rig.eval(["--data", data, "--out", out, "--prepare-from", rig.mirrors]);
    // Not one instance got past its input: the run measured nothing.
    expect(run.code).toBe(1);
    const reasons = readLines(path.join(out, "results.jsonl")).map((r) => (r.failure as { reason: string }).reason);
    expect(reasons.slice(0, 3)).toEqual([
      `${data}:1 has an instance_id that is not a plain file name (a letter or digit, then letters, digits, '.', '_', '-')`,
      `${data}:2 has an instance_id that is not a plain file name (a letter or digit, then letters, digits, '.', '_', '-')`,
      `${data}:3 has a 'patch' that is not a string`,
    ]);
    expect(fs.readdirSync(rig.repos).sort()).toEqual(before);
    expect(fs.existsSync(path.join(out, "summary.md"))).toBe(true);
  });

  it("refuses a data file none of whose records is an instance, before anything is written", async () => {
    const out = path.join(rig.work, "out-all-bad");
    const data = path.join(rig.work, "all-bad.jsonl");
    fs.writeFileSync(data, [JSON.stringify({ instance_id: "a__b-1", repo: "a/b" }), JSON.stringify({ instance_id: "a__b-2" }), ""].join("\n"));
    const run = await rig.eval(["--data", data, "--out", out]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `magis eval: all 2 records of ${data} failed to load, so nothing would run; the first: ${data}:1 has no string 'base_commit'; run 'magis eval --help'\n`,
    );
    expect(fs.existsSync(out)).toBe(false);
  });

  it("names every place it looked for the mirror when --prepare-from has none for the repository, and exits 1", async () => {
    const out = path.join(rig.work, "out-prepare");
    const other = path.join(rig.work, "other.jsonl");
    fs.writeFileSync(other, instanceLines(rig.commit)[0]!.replace('"acme/greet"', '"acme/absent"') + "\n");
    const run = await rig.eval(["--data", other, "--out", out, "--repos", path.join(rig.work, "repos-other"), "--prepare-from", rig.mirrors]);
    const reason = `could not make the checkout from ${rig.mirrors}: ${noMirrorMessage(rig.mirrors, "acme", "absent")}`;
    const [result] = readLines(path.join(out, "results.jsonl"));
    expect(result!.failure).toEqual({ stage: "input", reason });
    // Whole wherever it is shown: the progress line, the summary's failures, and the last word of the run.
    expect(run.stderr).toContain(`acme__greet-1: no patch (input: ${reason})`);
    expect(fs.readFileSync(path.join(out, "summary.md"), "utf8")).toContain(`| acme__greet-1 | input | ${reason} |`);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`magis eval: not one of the 1 instance(s) could be loaded, so nothing was measured; the first: ${reason}\n`);
  });

  it("gives BM25's files and recall to instances whose model fails every call", async () => {
    const failing = await startEvalRig();
    try {
      failing.model.script("custodian-summarize-file", () => reply.status(500));
      const run = await failing.eval(["--prepare-from", failing.mirrors]);
      expect(run.code).toBe(0);
      const results = readLines(path.join(failing.out, "results.jsonl"));
      expect(results.map((r) => [r.instance_id, (r.failure as { stage: string }).stage, r.located, r.kept, r.recall_located, r.calls])).toEqual([
        ["acme__greet-1", "locate", ["greet/hello.py", "greet/__init__.py", "README.md", "greet/legacy.py"], [], 1, 4],
        ["acme__greet-2", "locate", ["greet/legacy.py", "greet/__init__.py"], [], 1, 2],
        ["acme__greet-3", "locate", ["README.md"], [], 1, 1],
      ]);
      expect(readLines(path.join(failing.out, "predictions.jsonl")).map((p) => p.model_patch)).toEqual(["", "", ""]);
    } finally {
      await failing.close();
    }
  });
});
