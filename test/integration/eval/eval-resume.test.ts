import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userText } from "../../../examples/read-request.js";
import { readLines, scriptTeam, startEvalRig, type EvalRig } from "./eval-rig.js";

const entry = path.join(import.meta.dirname, "..", "locate", "run-magis.ts");
let rig: EvalRig;

beforeAll(async () => {
  rig = await startEvalRig();
});

afterAll(() => rig.close());

/** Resolves once `test` holds, checking every 50 ms, or rejects after `ms`. */
async function waitFor(test: () => boolean, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (!test()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("magis eval --resume after a kill", () => {
  it("keeps what a killed run finished and runs only the rest, with one line per instance in both files", async () => {
    let holding = true;
    // The second instance's model calls hang while the first run is up, so the kill lands mid-instance.
    scriptTeam(rig.model, (r) => holding && userText(r).includes("legacy() should"));
    const child = spawn(
      process.execPath,
      ["--import", "tsx", entry, "eval", "--data", rig.data, "--repos", rig.repos, "--out", rig.out, "--prepare-from", rig.mirrors, "--concurrency", "1"],
      { env: { ...process.env, ...rig.env }, detached: true, stdio: "ignore" },
    );
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      const results = path.join(rig.out, "results.jsonl");
      await waitFor(
        () => fs.existsSync(results) && readLines(results).length === 1 && rig.model.requests.some((r) => userText(r).includes("legacy() should")),
        60_000,
        "the first instance to finish and the second to start",
      );
      process.kill(-child.pid!, "SIGKILL");
      await exited;
    } finally {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // The group is gone already.
      }
    }
    expect(readLines(path.join(rig.out, "results.jsonl")).map((r) => r.instance_id)).toEqual(["acme__greet-1"]);
    const firstCalls = rig.model.requests.filter((r) => userText(r).includes("hello() should")).length;

    holding = false;
    const resumed = await rig.eval(["--resume"]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain("resuming: 1 of 3 instances are done");
    expect(rig.model.requests.filter((r) => userText(r).includes("hello() should")).length).toBe(firstCalls);
    const results = readLines(path.join(rig.out, "results.jsonl"));
    expect(results.map((r) => [r.instance_id, r.applies])).toEqual([
      ["acme__greet-1", true],
      ["acme__greet-2", false],
      ["acme__greet-3", null],
    ]);
    expect(readLines(path.join(rig.out, "predictions.jsonl")).map((p) => p.instance_id)).toEqual(["acme__greet-1", "acme__greet-2", "acme__greet-3"]);
    expect(fs.readFileSync(path.join(rig.out, "summary.md"), "utf8")).toContain("3 of 3 instances done");
    expect(fs.readdirSync(path.join(rig.out, "scratch"))).toEqual([]);
    // Two runs of the whole pipeline, the language servers' checks of each attempt included.
  }, 120_000);
});
