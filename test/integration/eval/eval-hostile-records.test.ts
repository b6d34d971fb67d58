import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instanceLines, readLines, scriptTeam, startEvalRig, type EvalRig } from "./eval-rig.js";

let rig: EvalRig;

// The second audit's records: an id of 5,000 characters (a file name no system takes) and a base commit that git would
// read as an option. Each is that line's failure; the good instance after them still runs.
beforeAll(async () => {
  rig = await startEvalRig((commit) => {
    const good = instanceLines(commit)[0]!;
    return [
      good.replace("acme__greet-1", `acme__${"x".repeat(5000)}`),
      good.replace("acme__greet-1", "acme__greet-dash").replace(commit, "--upload-pack=touch /tmp/pwned"),
      good,
    ];
  });
  scriptTeam(rig.model);
});

afterAll(() => rig.close());

describe("magis eval on hostile records", () => {
  it("records an overlong id and a base commit that is not a commit id as those lines' failures, and runs the rest", async () => {
    const run = await rig.eval(["--prepare-from", rig.mirrors]);
    expect(run.code).toBe(0);
    const results = readLines(path.join(rig.out, "results.jsonl"));
    expect(results.map((r) => [String(r.instance_id).slice(0, 20), (r.failure as { stage: string; reason: string } | null)?.reason ?? null])).toEqual([
      ["line-1", `${rig.data}:1 has an instance_id of 5006 characters; an id names a file, and may have at most 128`],
      ["acme__greet-dash", `${rig.data}:2 has a 'base_commit' that is not a commit id (7 to 64 hexadecimal digits)`],
      ["acme__greet-1", null],
    ]);
    expect(fs.readdirSync(rig.repos)).not.toContain("acme__greet-dash");
  });
});
