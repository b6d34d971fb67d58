import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GOLD, readLines, scriptTeam, startEvalRig, type EvalRig } from "./eval-rig.js";

let rig: EvalRig;

/** Two instances of acme/greet, at versions 1.0 and 2.0: the environments file sets up each its own way. */
const lines = (commit: string) =>
  [
    ["acme__greet-1", "1.0"],
    ["acme__greet-2", "2.0"],
  ].map(([id, version]) =>
    JSON.stringify({
      instance_id: id,
      repo: "acme/greet",
      version,
      base_commit: commit,
      problem_statement: "hello() should greet politely\nhello('Ann') returns 'hello Ann'; the greeting should be 'Hello, Ann!'.",
      patch: GOLD.hello,
    }),
  );

beforeAll(async () => {
  rig = await startEvalRig(lines);
  scriptTeam(rig.model);
  // With commands allowed the Manager chooses the way with the first file's task: static, so that the tests alone use
  // the environment.
  rig.model.script("manager-define-task-and-way", () => ({
    description: "Change the returned text as the issue asks.",
    needs_change: true,
    way: { reason: "A one-line change of a returned text.", way: "static", reproducer: { name: "Rae", role: "You show bugs with short scripts." } },
  }));
});

afterAll(() => rig.close());

describe("magis eval --environments", () => {
  it("sets each instance up by its repository and version, and records whether its environment became ready", async () => {
    const file = path.join(rig.work, "environments.yml");
    // Version 1.0 builds (its tests need what the setup made); any other version's setup fails.
    fs.writeFileSync(
      file,
      [
        "acme/greet:",
        '  "1.0":',
        "    setup_command: mkdir -p made && echo ready > made/flag",
        "    test_command: test -f made/flag",
        '  "*":',
        "    setup_command: echo no toolchain for this version >&2; exit 3",
        "    test_command: test -f made/flag",
      ].join("\n"),
    );
    const run = await rig.eval(["--prepare-from", rig.mirrors, "--allow-commands", "--environments", file]);
    expect(rig.model.problems).toEqual([]);
    expect(run.code).toBe(0);
    const results = Object.fromEntries(readLines(path.join(rig.out, "results.jsonl")).map((r) => [r.instance_id, r]));
    expect(results["acme__greet-1"]!.environment).toMatchObject({ source: ".github/magis.yml setup_command", how: "built", ready: true });
    expect(results["acme__greet-2"]!.environment).toMatchObject({ how: "built", ready: false });
    expect(String((results["acme__greet-2"]!.environment as { failed: string }).failed)).toMatch(/exit 3|exit code 3|exited 3/);
    const summary = fs.readFileSync(path.join(rig.out, "summary.md"), "utf8");
    expect(summary).toMatch(/\| environment ready \| 1 of 2 \(0 reused\); median \d+(\.\d+)? s to ready \|/);
    expect(summary).toContain("| environment not ready | 1 ");
  });

  it("refuses a file that sets what it may not, or is not a mapping, before anything runs", async () => {
    const bad = path.join(rig.work, "bad.yml");
    fs.writeFileSync(bad, 'acme/greet:\n  "*":\n    model: gpt-5\n');
    const refused = await rig.eval(["--allow-commands", "--environments", bad]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--environments ${bad} acme/greet "*": 'model' may not be set here; only environment, setup_command, test_command`);
    fs.writeFileSync(bad, 'acme/greet:\n  "*":\n    test_timeout_seconds: 0\n');
    const invalid = await rig.eval(["--allow-commands", "--environments", bad]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("test_timeout_seconds");
    fs.writeFileSync(bad, "- just a list\n");
    expect((await rig.eval(["--allow-commands", "--environments", bad])).stderr).toContain("is not a mapping of repository (owner/name)");
    const without = await rig.eval(["--environments", bad]);
    expect(without.code).toBe(2);
    expect(without.stderr).toContain("--environments sets up the repositories' commands, which run only with --allow-commands");
    expect(fs.existsSync(path.join(rig.out, "results.jsonl")) ? readLines(path.join(rig.out, "results.jsonl")).length : 0).toBeLessThanOrEqual(2);
  });
});
