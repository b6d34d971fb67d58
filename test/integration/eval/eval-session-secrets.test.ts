import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../../support/scripted-model.js";
import { instanceLines, scriptTeam, startEvalRig, USAGE, type EvalRig } from "./eval-rig.js";

// No credential shape (a local server takes any key): only its value tells it apart.
const KEY = "local-model-key-of-the-eval-0123456789";
let rig: EvalRig;

beforeAll(async () => {
  // The first instance alone, with its commands off (no --allow-commands) and the model's key set.
  rig = await startEvalRig((commit) => instanceLines(commit).slice(0, 1));
  rig.env.OPENAI_API_KEY = KEY;
  // The Manager's answer quotes the key; the rest of the team answers as usual.
  rig.model.script("manager-define-task", reply.json({ needs_change: true, description: `Change the returned text (the key is ${KEY}).` }, { usage: USAGE }));
  scriptTeam(rig.model);
});

afterAll(() => rig.close());

describe("magis eval's session pages and the model's key", () => {
  it("hold [redacted] where a model answer quotes the key, with commands off", async () => {
    const run = await rig.eval(["--prepare-from", rig.mirrors]);
    expect(run.code).toBe(0);
    expect(rig.model.problems).toEqual([]);
    const page = fs.readFileSync(path.join(rig.out, "sessions", "acme__greet-1.html"), "utf8");
    expect(page).toContain("(the key is [redacted])");
    expect(page).not.toContain(KEY);
  });
});
